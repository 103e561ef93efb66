// POST /v1/tickets. Everything a create writes is decided here: the ticket, its `ticket.created`
// event (and, through the event sink, the webhook deliveries and their jobs), and the
// Idempotency-Key's record with the answer when the request has a key. The store finds what the
// rows depend on (the branch, the queue, the next display number, the webhook endpoints), calls
// back `build` for the rows, and commits them, its engine's way (Db.commitCreate; the contract in
// src/core/ticket-create.ts): one transaction on SQLite, statements shared with the creates that
// arrive together on PostgreSQL. The store takes rows only: what follows the commit (the live
// update, the webhook jobs handed to this node's runner) is run here, once commitCreate has
// returned, so the store never calls up a second time. Keyed or not, every create takes this path.
import { unknownQueue } from './queues.ts';
import type { Ctx } from '../core/ctx.ts';
import { newId } from '../domain/ids.ts';
import { expiryMs } from '../domain/branch-settings.ts';
import { ticketToken } from '../domain/ticket-token.ts';
import type { CreateFound } from '../core/ticket-create.ts';
import type { KeyToRecord } from '../core/write-commit.ts';
import type { EventWrites } from '../core/events.ts';
import { runAfterCommitHooks } from '../store/db.ts';
import { ticketRow } from '../store/tickets.ts';
import type { Ticket } from '../core/ticket.ts';
import { createdRollupRow } from '../store/insights-rollups.ts';
import { presentTicket } from '../contract/present.ts';
import type { TicketObject } from '../contract/schemas.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';

export type CreateTicketInput = {
  queue?: string;
  external_ref?: string;
  customer_phone?: string;
  metadata?: Record<string, string>;
};

/** What a create answers: its ticket's wire form, and that serialised as sent and stored under the key. */
export type CreatedTicket = { kind: 'done'; result: TicketObject; answer: string } | { kind: 'key-taken' };

/** Creates the ticket (a verb that commits itself: the write path hands it the key to record). */
export async function createTicket({
  ctx,
  input,
  key,
}: {
  ctx: Ctx;
  input: CreateTicketInput;
  key: KeyToRecord | null;
}): Promise<CreatedTicket> {
  const { db, clock, config } = ctx.services;
  const now = clock.now();
  // What to do once the rows are committed, as the last build made it (on PostgreSQL the store
  // may build again with another number; only the build it committed counts).
  let afterCommit: Array<() => void> = [];
  let created: TicketObject | null = null;
  const outcome = await db.commitCreate({
    branchId: ctx.branchId,
    mode: ctx.mode,
    queue: input.queue ?? null,
    at: now,
    key,
    async build(found, rows) {
      const after: Array<() => void> = [];
      afterCommit = after;
      const out: EventWrites = { subscribers: rows.subscribers, insert: rows.insert, afterCommit: (fn) => void after.push(fn) };
      const ticket = newTicket(ctx, input, found, now);
      await out.insert(ticketRow(ticket));
      const object = presentTicket(ticket, config.publicUrl);
      created = object;
      await recordEvent(ctx, 'ticket.created', { object }, out);
      // The owners' hourly figures (decision 0025), merged with the creates committed together.
      await out.insert(createdRollupRow(ticket, now, found.timeZone, db.dialect));
      publishTicket(ctx, ticket, 'ticket.created', {}, out);
      return JSON.stringify(object);
    },
  });
  if (outcome.kind === 'done') runAfterCommitHooks(afterCommit);
  if (outcome.kind === 'unknown-queue') {
    throw await unknownQueue(db, ctx.branchId, outcome.queue, '/queue', ' Create it with POST /v1/queues first.');
  }
  return outcome.kind === 'done' ? { kind: 'done', result: created!, answer: outcome.answer } : outcome;
}

/** A ticket as a create writes it. */
function newTicket(ctx: Ctx, input: CreateTicketInput, { queue, number, expiryHours }: CreateFound, now: number): Ticket {
  return {
    // The id's time is createdAt, to the millisecond: the list's created range is a range of ids.
    id: newId('ticket', now),
    branchId: ctx.branchId,
    mode: ctx.mode,
    queue,
    number,
    displayNumber: `${queue}-${number}`,
    status: 'created',
    token: ticketToken(),
    externalRef: input.external_ref ?? null,
    customerPhone: input.customer_phone ?? null,
    metadata: input.metadata ?? null,
    // Only a connector's job acts as a system actor that creates tickets; a request never does.
    source: ctx.actor.kind === 'system' ? ctx.actor.name : null,
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
    expiresAt: now + expiryMs(expiryHours),
    updatedAt: now,
  };
}
