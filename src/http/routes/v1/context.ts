import type { FastifyRequest } from 'fastify';
import type { Ctx, Services } from '../../../core/ctx.ts';

/** The action context of an authenticated /v1 request: tenant, mode and actor come from auth only. */
export function ctxFor(req: FastifyRequest, services: Services): Ctx {
  const auth = req.auth!;
  return {
    actor: auth.actor,
    accountId: auth.accountId,
    plan: auth.plan,
    branchId: auth.branchId,
    mode: auth.mode,
    requestId: String(req.id),
    idempotencyKey: req.idempotencyKey ?? null,
    services,
  };
}
