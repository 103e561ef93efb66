// The state change that starts a ring (ready, ring again, a reminder, a snooze's end): the state
// machine decides the one state each starts from, and the store applies the change and counts the
// ring in one statement.
import type { TxCtx } from '../core/ctx.ts';
import { type AppError, notFound } from '../domain/errors.ts';
import { allowedFrom, nextStatus, stateConflict, type TicketOperation } from '../domain/ticket-state.ts';
import type { TicketStatus } from '../core/ticket.ts';
import { getTicket } from '../store/tickets.ts';
import type { Ticket } from '../core/ticket.ts';
import { startTicketRing, type RingingTicket } from '../store/rings.ts';

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
