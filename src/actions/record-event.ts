// Records an event (PRODUCT.md §6 envelope) with the writer of the change that caused it, and
// passes it to the service's event sink (services.events), so the event and what it sets off
// (webhook deliveries) commit with that change: an action's transaction (recordEvent), or a
// create's commit (createTicket passes its own writer to recordEventWith).
import type { Ctx, TxCtx } from '../core/ctx.ts';
import type { EventRecord, EventWrites } from '../core/events.ts';
import { newId } from '../domain/ids.ts';
import { insertRow } from '../store/rows.ts';
import { insertEventListingTargets } from '../store/webhook-endpoints.ts';
import { eventRow } from '../store/outbox.ts';
import { API_VERSION } from '../contract/event-schemas.ts';

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
  };
}

/** Records the event in the action's transaction; returns its id. */
export async function recordEvent(ctx: TxCtx, type: string, data: Record<string, unknown>): Promise<string> {
  const { tx } = ctx;
  const event = newEvent(ctx, type, data);
  // The event's row, and the endpoints its sink may fan it out to read with it (one statement on PostgreSQL).
  const subscribers = await insertEventListingTargets(tx, event);
  await ctx.services.events.record(event, { subscribers, insert: (row) => insertRow(tx, row), afterCommit: (fn) => tx.afterCommit(fn) });
  return event.id;
}

/** Records the event with a writer that sends its rows together (a create's commit); returns its id. */
export async function recordEventWith(ctx: Ctx, out: EventWrites, type: string, data: Record<string, unknown>): Promise<string> {
  const event = newEvent(ctx, type, data);
  await out.insert(eventRow(event));
  await ctx.services.events.record(event, out);
  return event.id;
}
