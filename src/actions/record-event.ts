// Writes an event in the caller's transaction (PRODUCT.md §6 envelope). Webhook deliveries for
// the event are enqueued by the same call (services.eventHooks), so an event and its deliveries
// commit together.
import type { Ctx, TxCtx } from './ctx.ts';
import { newId } from '../domain/ids.ts';
import { insertEvent } from '../store/outbox.ts';
import { insertEventListingTargets, type FanOutTarget } from '../store/webhook-endpoints.ts';
import { isWebhookFanOut } from '../webhooks/fan-out.ts';

export const API_VERSION = 'v1';

export type EventHook = (
  ctx: TxCtx,
  /** `targets`: the branch's enabled endpoints, read with the event's INSERT when a fan-out hook is installed. */
  event: { id: string; type: string; createdAt: number; body: string; targets?: FanOutTarget[] },
) => Promise<void>;
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

export async function recordEvent(ctx: TxCtx, type: string, data: Record<string, unknown>): Promise<string> {
  const createdAt = ctx.services.clock.now();
  const id = newId('event', createdAt);
  const body = eventEnvelope(ctx, id, type, createdAt, data);
  const { eventHooks } = ctx.services;
  const record = { id, branchId: ctx.branchId, mode: ctx.mode, type, createdAt, body };
  let targets: FanOutTarget[] | undefined;
  if (eventHooks.some(isWebhookFanOut)) targets = await insertEventListingTargets(ctx.tx, record);
  else await insertEvent(ctx.tx, record);
  for (const hook of eventHooks) await hook(ctx, { id, type, createdAt, body, targets });
  return id;
}
