// Records an event (PRODUCT.md §6 envelope) with the writer of the change that caused it, and
// passes it to the service's event sink (services.events), so the event and what it sets off
// (webhook deliveries) commit with that change: an action's transaction, or a create's commit
// (createTicket passes its own writer). One writer for every event, the test ping's too.
import type { Ctx, TxCtx } from '../core/ctx.ts';
import type { Tx } from '../core/db.ts';
import type { EventRecord, EventSubscriber, EventWrites } from '../core/events.ts';
import { newId } from '../domain/ids.ts';
import { insertRow } from '../store/rows.ts';
import { insertEventListingTargets } from '../store/webhook-endpoints.ts';
import { eventRow } from '../store/outbox.ts';
import { API_VERSION } from '../contract/event-schemas.ts';
import { ticketPresentedAs } from '../contract/present.ts';

/** The PRODUCT.md §6 envelope, serialised as every event body is stored and sent. */
export function eventEnvelope(ctx: Ctx, id: string, type: string, createdAt: number, data: Record<string, unknown>): string {
  return JSON.stringify({
    id,
    object: 'event',
    type,
    created_at: new Date(createdAt).toISOString(),
    livemode: ctx.mode === 'live',
    api_version: API_VERSION,
    branch: ctx.branchId,
    data,
    request: ctx.requestId === null ? null : { id: ctx.requestId, idempotency_key: ctx.idempotencyKey },
  });
}

function newEvent(ctx: Ctx, type: string, data: Record<string, unknown>): EventRecord {
  const createdAt = ctx.services.clock.now();
  const id = newId('event', createdAt);
  return {
    id,
    accountId: ctx.accountId,
    branchId: ctx.branchId,
    mode: ctx.mode,
    type,
    createdAt,
    body: eventEnvelope(ctx, id, type, createdAt, data),
    ticket: ticketPresentedAs(data.object),
    fromRequest: ctx.requestId !== null,
  };
}

/** A writer over an action's transaction, for an event's sink: the endpoints as read with the event. */
export const transactionWrites = (tx: Tx, subscribers: readonly EventSubscriber[]): EventWrites => ({
  subscribers,
  insert: (row) => insertRow(tx, row),
  afterCommit: (fn) => tx.afterCommit(fn),
});

/**
 * Records the event with the writer of the change that caused it, and hands it to the sink;
 * returns its id. In the action's transaction (ctx.tx), the event's row and the endpoints its sink
 * may fan it out to are one statement on PostgreSQL; `out` is a writer that sends its rows
 * together (a create's commit) or names its own audience (a ping).
 */
export function recordEvent(ctx: TxCtx, type: string, data: Record<string, unknown>): Promise<string>;
export function recordEvent(ctx: Ctx, type: string, data: Record<string, unknown>, out: EventWrites): Promise<string>;
export async function recordEvent(ctx: Ctx & { tx?: Tx }, type: string, data: Record<string, unknown>, out?: EventWrites): Promise<string> {
  const event = newEvent(ctx, type, data);
  let writes = out;
  if (writes === undefined) {
    const tx = ctx.tx!;
    writes = transactionWrites(tx, await insertEventListingTargets(tx, event));
  } else {
    await writes.insert(eventRow(event));
  }
  await ctx.services.events.record(event, writes);
  return event.id;
}
