import type { Action, Ctx } from './ctx.ts';
import { newId } from '../domain/ids.ts';
import { invalid } from '../domain/errors.ts';
import { businessDay } from '../domain/business-day.ts';
import { ticketToken } from '../domain/ticket-token.ts';
import { getBranchAndQueue } from '../store/tenancy.ts';
import { insertTicketNumbered, type Ticket } from '../store/tickets.ts';
import { presentTicket } from './present.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';

export type CreateTicketInput = {
  queue?: string;
  external_ref?: string;
  customer_phone?: string;
  metadata?: Record<string, string>;
};

export const createTicket: Action<CreateTicketInput, Ticket> = async ({ ctx, input }) => {
  const { tx } = ctx;
  const { branch, queue, queueExists } = (await getBranchAndQueue(tx, ctx.branchId, input.queue ?? null))!;
  if (!queueExists) {
    throw invalid('/queue', `Queue "${queue}" does not exist in this branch. Create it with POST /v1/queues first.`);
  }
  const now = ctx.services.clock.now();
  const day = businessDay(now, branch.timezone);
  const ticket = newTicket(ctx, input, queue, now, branch.settings.expiry_hours);
  // Two creates racing across local midnight use two day counters and may pick the same number;
  // the partial unique index refuses the second, which then takes the next number instead.
  await insertTicketNumbered(tx, ticket, day);
  await recordEvent(ctx, 'ticket.created', { object: presentTicket(ticket, ctx.services.config.publicUrl) });
  publishTicket(ctx, ticket, 'ticket.created');
  return ticket;
};

/** A ticket as a create writes it, unnumbered: number and display number come with the insert. */
export function newTicket(ctx: Ctx, input: CreateTicketInput, queue: string, now: number, expiryHours: number): Ticket {
  return {
    // The id's time is createdAt, to the millisecond: the list's created range is a range of ids.
    id: newId('ticket', now),
    branchId: ctx.branchId,
    mode: ctx.mode,
    queue,
    number: 0,
    displayNumber: '',
    status: 'created',
    token: ticketToken(),
    externalRef: input.external_ref ?? null,
    customerPhone: input.customer_phone ?? null,
    metadata: input.metadata ?? null,
    createdAt: now,
    readyAt: null,
    collectedAt: null,
    cancelledAt: null,
    expiredAt: null,
    closedAt: null,
    cancelReason: null,
    viewedAt: null,
    notifications: 'none',
    acknowledgedAt: null,
    snoozedUntil: null,
    rings: 0,
    lastRingAt: null,
    expiresAt: now + expiryHours * 3600_000,
    updatedAt: now,
  };
}
