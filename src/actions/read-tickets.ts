// Reading the branch's tickets over /v1: one by id, and a page of the list. Tickets belong to the
// ctx's branch and mode: another branch's or mode's id answers 404 like an unknown one, and a list
// cursor must be a ticket the caller could read.
import { readerOf, type Read } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { isId } from '../domain/ids.ts';
import { getTicket, listTickets, type TicketFilter } from '../store/tickets.ts';

/** `id` has the shape of a ticket id (the route checks it, with its own 404 for a display number). */
export const readTicket: Read<{ id: string }, Ticket> = async ({ ctx, input }) => {
  const ticket = await getTicket(readerOf(ctx), ctx.branchId, ctx.mode, input.id);
  if (ticket === undefined) throw notFound('ticket');
  return ticket;
};

export const listTicketPage: Read<TicketFilter, { data: Ticket[]; hasMore: boolean }> = async ({ ctx, input }) => {
  const q = readerOf(ctx);
  if (input.startingAfter !== undefined) {
    const cursor = isId('ticket', input.startingAfter) ? await getTicket(q, ctx.branchId, ctx.mode, input.startingAfter) : undefined;
    if (cursor === undefined) throw invalid('/query/starting_after', 'starting_after must be the id of a ticket of this branch and mode.');
  }
  return listTickets(q, ctx.branchId, ctx.mode, input);
};
