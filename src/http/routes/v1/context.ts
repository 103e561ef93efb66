// What a /v1 route reads from its request besides its validated input: the action context (from
// auth only), and a ticket's id from the path, refused with a 404 that says what an id looks like.
import type { FastifyRequest } from 'fastify';
import type { Ctx, Services } from '../../../core/ctx.ts';
import { AppError } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';

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

const DISPLAY_NUMBER = /^([A-Za-z0-9_]{1,16})-[0-9]+$/;

/**
 * The 404 for a path id that cannot be a ticket's: it says what an id looks like, and, when it is
 * a display number (the number a person reads off a receipt), how to find its ticket.
 */
export function notATicketId(id: string): AppError {
  const shape = 'Ticket ids look like tk_01m81gqpzte3xw0pctqsawp2kt (the id answered when the ticket was created).';
  const queue = DISPLAY_NUMBER.exec(id)?.[1];
  if (queue === undefined) return new AppError('not-found', `No such ticket: "${id}" is not a ticket id. ${shape}`);
  return new AppError(
    'not-found',
    `No such ticket: "${id}" looks like a display number, not a ticket id. ${shape} ` +
      `Display numbers restart every day; find the ticket with GET /v1/tickets?queue=${queue}&status=created,ready (each ticket carries its display_number), or by your order number with GET /v1/tickets?external_ref=….`,
  );
}

export function ticketIdFrom(id: string): string {
  if (!isId('ticket', id)) throw notATicketId(id);
  return id;
}
