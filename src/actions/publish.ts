// After-commit live updates: staff views and boards of the branch, and the ticket's own page. The
// one publish of a ticket's change, whichever writer commits it.
import type { Ctx, TxCtx } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { channels } from '../core/bus.ts';

/** What a publish waits for: the commit of the action's transaction, or of a create's writer. */
type Committing = { afterCommit(fn: () => void): void };

/** Publishes the ticket's change once `after` (ctx.tx when not given) has committed. */
export function publishTicket(ctx: TxCtx, ticket: Ticket, type: string, extra?: Record<string, unknown>): void;
export function publishTicket(ctx: Ctx, ticket: Ticket, type: string, extra: Record<string, unknown>, after: Committing): void;
export function publishTicket(ctx: Ctx & { tx?: Committing }, ticket: Ticket, type: string, extra = {}, after = ctx.tx!): void {
  const { bus } = ctx.services;
  after.afterCommit(() => {
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
  });
}
