// After-commit live updates: staff views and boards of the branch, and the ticket's own page.
import type { TxCtx } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { channels } from '../core/bus.ts';
import type { Bus } from '../core/bus.ts';

export function publishTicket(ctx: TxCtx, ticket: Ticket, type: string, extra: Record<string, unknown> = {}): void {
  const { bus } = ctx.services;
  ctx.tx.afterCommit(() => publishTicketNow(bus, ticket, type, extra));
}

/** The publish itself, for a caller that runs it after its own commit (a create). */
export function publishTicketNow(bus: Bus, ticket: Ticket, type: string, extra: Record<string, unknown> = {}): void {
  const message = {
    type,
    ticket_id: ticket.id,
    status: ticket.status,
    queue: ticket.queue,
    display_number: ticket.displayNumber,
    ...extra,
  };
  bus.publish(channels.branch(ticket.branchId, ticket.mode), message);
  // Nobody can be watching a ticket's own topic before its create is answered (the page's link
  // is in that answer): with Redis, that publish would be a round trip per create for nobody.
  if (type !== 'ticket.created') bus.publish(channels.ticket(ticket.id), message);
}
