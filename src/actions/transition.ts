// The one way an action changes a ticket's state: the state machine decides which states allow
// the operation, and the store applies the change only if the row is still in one of them.
import type { TxCtx } from './ctx.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { nextStatus, TICKET_STATUSES, type TicketOperation, type TicketStatus } from '../domain/ticket-state.ts';
import { getTicket, transitionTicket, type Ticket, type TicketChange } from '../store/tickets.ts';
import { startTicketRing, type RingingTicket } from '../store/rings.ts';

export function allowedFrom(op: TicketOperation): TicketStatus[] {
  return TICKET_STATUSES.filter((s) => nextStatus(s, op) !== null);
}

export function stateConflict(op: string, status: TicketStatus): AppError {
  return new AppError('ticket-state-conflict', `Cannot ${op} a ticket that is ${status}.`, { ticket_status: status });
}

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
  const target = nextStatus(current.status, op)!;
  const now = ctx.services.clock.now();
  const ticket = await transitionTicket(ctx.tx, ctx.branchId, ctx.mode, id, from, { ...change, status: target, updatedAt: now });
  if (ticket === undefined) {
    // Another transaction changed it between our read and write (PostgreSQL); report its state.
    const fresh = await getTicket(ctx.tx, ctx.branchId, ctx.mode, id);
    throw stateConflict(verb, fresh?.status ?? current.status);
  }
  return { before: current.status, ticket };
}

/** Operations that ring the customer: each starts from exactly one state. */
export type RingOperation = Extract<TicketOperation, 'ready' | 'ring' | 'remind' | 'snooze_end'>;

/**
 * A state change that rings (ready, ring again, a reminder, a snooze's end): the state check, the
 * change and the ring count are one statement (startTicketRing), and no read comes before it.
 * Only when it changes nothing does one read say why: no such ticket (404), another state (409),
 * or, through `tooSoon`, a ring too recent for `notRungAfter`.
 */
export async function applyRingTransition(
  ctx: TxCtx,
  id: string,
  op: RingOperation,
  opts: { verb?: string; readyAt?: number; notRungAfter?: number; tooSoon?: (current: Ticket) => AppError } = {},
): Promise<{ before: TicketStatus; rung: RingingTicket }> {
  const [from, ...others] = allowedFrom(op);
  if (from === undefined || others.length > 0) throw new Error(`${op} must start from exactly one state`);
  const to = nextStatus(from, op)!;
  const { branchId, mode } = ctx;
  const rung = await startTicketRing(ctx.tx, {
    branchId,
    mode,
    id,
    from,
    to,
    now: ctx.services.clock.now(),
    readyAt: opts.readyAt,
    notRungAfter: opts.notRungAfter,
  });
  if (rung !== undefined) return { before: from, rung };
  const current = await getTicket(ctx.tx, branchId, mode, id);
  if (current === undefined) throw notFound('ticket');
  if (current.status === from && opts.tooSoon !== undefined) throw opts.tooSoon(current);
  throw stateConflict(opts.verb ?? op, current.status);
}
