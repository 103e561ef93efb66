// The authenticated /v1 scope: the hooks every API operation passes (authentication by API key or
// staff session, rate limits, Idempotency-Key parsing), then the operations themselves. Sign-in,
// the one /v1 operation without credentials, is mounted beside this scope, not in it
// (src/http/route-table.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../../core/ctx.ts';
import { AppError } from '../../../domain/errors.ts';
import { parseIdempotencyKey } from '../../../domain/idempotency-key.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';
import { registerAuth } from '../../plugins/auth.ts';
import { registerRateLimit } from '../../plugins/rate-limit.ts';
import { createSessionAuthenticator } from '../../plugins/session.ts';
import { registerBranchRoutes } from './branch.ts';
import { registerQueueRoutes } from './queues.ts';
import { registerTicketRoutes } from './tickets.ts';
import { registerTicketActionRoutes } from './ticket-actions.ts';
import { registerEventRoutes } from './events.ts';
import { registerWebhookEndpointRoutes } from './webhook-endpoints.ts';
import { registerSessionRoutes } from './sessions.ts';
import { registerApiKeyRoutes } from './api-keys.ts';
import { registerUserRoutes } from './users.ts';
import { registerStreamRoute } from './stream.ts';
import { registerDisplayRoutes } from './displays.ts';
import { registerAnnouncementRoutes } from './announcements.ts';
import { registerTestHelperRoutes } from './test-helpers.ts';
import { registerInsightRoutes } from './insights.ts';
import { registerInvitationRoutes } from './invitations.ts';
import { registerAccountRoutes } from './account.ts';
import { registerBillingRoutes } from './billing.ts';
import { registerVerificationEmailRoute } from './signup.ts';

import { type ListedModule, registerConnectorList } from './connectors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

export type ApiScopeDeps = {
  services: Services;
  limiter: RateLimiter;
  /** API key ids seen since the last flush of last_used_at (jobs/maintenance.ts writes them). */
  lastUsedKeys: Set<string>;
  /** The installed modules: their operations join this scope (a connector's owner screen's). */
  modules: readonly (ListedModule & { readonly routes?: { api?(app: FastifyInstance, services: Services): void } })[];
  /** Answers unknown /v1 paths and wrong methods, after the scope's hooks. */
  notFound: (req: FastifyRequest, reply: FastifyReply) => FastifyReply;
};

/** Registered on a scope with the /v1 prefix. */
export function registerApiScope(v1: FastifyInstance, deps: ApiScopeDeps): void {
  const { services } = deps;
  registerAuth(v1, services, deps.lastUsedKeys, createSessionAuthenticator(services));
  registerRateLimit(v1, services.config, deps.limiter, services.clock, services.metrics);
  v1.decorateRequest('idempotencyKey', null);
  v1.addHook('preHandler', async (req) => {
    if (req.method !== 'POST' && req.method !== 'PATCH' && req.method !== 'DELETE') return;
    const parsed = parseIdempotencyKey(req.headers['idempotency-key']);
    if (!parsed.ok)
      throw new AppError('bad-request', parsed.detail, { errors: [{ pointer: '/headers/idempotency-key', detail: parsed.detail }] });
    req.idempotencyKey = parsed.key;
  });
  registerV1Routes(v1, services);
  for (const m of deps.modules) m.routes?.api?.(v1, services);
  registerConnectorList(v1, services.config, deps.modules);
  registerInvitationRoutes(v1, services, deps.limiter);
  registerAccountRoutes(v1, services, deps.limiter);
  registerVerificationEmailRoute(v1, services, deps.limiter);
  // Unknown /v1 routes and wrong methods pass the scope's hooks too: authenticated and counted
  // like every API request, so they carry the RateLimit fields.
  v1.setNotFoundHandler(deps.notFound);
}

function registerV1Routes(app: FastifyInstance, services: Services): void {
  registerBranchRoutes(app, services);
  registerQueueRoutes(app, services);
  registerTicketRoutes(app, services);
  registerTicketActionRoutes(app, services);
  registerEventRoutes(app, services);
  registerWebhookEndpointRoutes(app, services);
  registerSessionRoutes(app, services);
  registerApiKeyRoutes(app, services);
  registerUserRoutes(app, services);
  registerStreamRoute(app, services);
  registerDisplayRoutes(app, services);
  registerAnnouncementRoutes(app, services);
  registerTestHelperRoutes(app, services);
  registerInsightRoutes(app, services);
  registerBillingRoutes(app, services);
}
