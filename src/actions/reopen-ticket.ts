// Reopen: a ticket cancelled or collected by mistake comes back (decision 0047), to `ready` if it
// had been made ready, else to `created`, while its customer page still opens (CLOSED_LINK_TTL_MS
// after the close). What the close erased stays erased: the phone number and the push
// subscriptions (PRODUCT.md §1); the customer page opened (or reloaded) after the reopen follows
// the ticket and rings on the page (no more texts: the number is gone). The close is taken
// out of the owners' figures, in the hour it was counted in.
import type { Action } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { CLOSED_LINK_TTL_MS } from '../domain/ticket-state.ts';
import { displayNumberHeld, getTicket } from '../store/tickets.ts';
import { closingChange, countTicketChange } from '../store/insights-rollups.ts';
import { applyTransition } from './transition.ts';
import { stateConflict } from '../domain/ticket-state.ts';
import { presentTicket } from '../contract/present.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';

export const reopenTicket: Action<{ id: string }, Ticket> = async ({ ctx, input }) => {
  const now = ctx.services.clock.now();
  const current = await getTicket(ctx.tx, ctx.branchId, ctx.mode, input.id);
  if (current === undefined) throw notFound('ticket');
  if (current.status !== 'cancelled' && current.status !== 'collected') throw stateConflict('reopen', current.status);
  if (current.closedAt !== null && now - current.closedAt > CLOSED_LINK_TTL_MS)
    throw new AppError(
      'ticket-state-conflict',
      `Cannot reopen a ticket closed more than ${CLOSED_LINK_TTL_MS / 3600_000} hours ago: its customer page is gone. Create a new ticket.`,
      { ticket_status: current.status },
    );
  if (await displayNumberHeld(ctx.tx, current))
    throw new AppError('conflict', `Cannot reopen ${current.displayNumber}: another open ticket has that number now. Create a new ticket.`);
  // A ticket reopened near its expiry gets its whole lifetime again, counted from now.
  const expiresAt = Math.max(current.expiresAt, now + (current.expiresAt - current.createdAt));
  const { before, ticket } = await applyTransition(ctx, input.id, 'reopen', {
    collectedAt: null,
    cancelledAt: null,
    cancelReason: null,
    closedAt: null,
    expiresAt,
  });
  await countTicketChange(ctx.tx, current, current.closedAt ?? now, closingChange(current), undefined, -1);
  await recordEvent(ctx, 'ticket.reopened', { object: presentTicket(ticket, ctx.services.config.publicUrl), previous_status: before });
  publishTicket(ctx, ticket, 'ticket.reopened');
  return ticket;
};
