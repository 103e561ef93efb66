// The one way an action changes a ticket's state: the state machine decides which states allow
// the operation, and the store applies the change only if the row is still in one of them.
import type { TxCtx } from '../core/ctx.ts';
import { notFound } from '../domain/errors.ts';
import { allowedFrom, nextStatus, stateConflict, type TicketOperation } from '../domain/ticket-state.ts';
import type { TicketStatus } from '../core/ticket.ts';
import { getTicket, transitionTicket, type TicketChange } from '../store/tickets.ts';
import type { Ticket } from '../core/ticket.ts';

export async function applyTransition(
  ctx: TxCtx,
  id: string,
  op: TicketOperation,
  change: TicketChange,
  verb: string = op,
): Promise<{ before: TicketStatus; ticket: Ticket }> {
  const from = allowedFrom(op);
  const current = await getTicket(ctx.tx, ctx.branchId, ctx.mode, id);
  if (current === undefined) throw notFound('ticket');
  if (!from.includes(current.status)) throw stateConflict(verb, current.status);
  const target = nextStatus(current.status, op, current.readyAt !== null)!;
  const now = ctx.services.clock.now();
  const ticket = await transitionTicket(ctx.tx, ctx.branchId, ctx.mode, id, from, { ...change, status: target, updatedAt: now });
  if (ticket === undefined) {
    // Another transaction changed it between our read and write (PostgreSQL); report its state.
    const fresh = await getTicket(ctx.tx, ctx.branchId, ctx.mode, id);
    throw stateConflict(verb, fresh?.status ?? current.status);
  }
  return { before: current.status, ticket };
}
