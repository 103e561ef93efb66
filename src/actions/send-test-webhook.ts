// POST /v1/webhook_endpoints/{id}/test: a `ping` event to this endpoint only, whatever its
// enabled_events, through the same outbox, signature and retries as every other event. The event
// is stored like any other (it appears in GET /v1/events), so its delivery log reads the same.
import type { Action } from '../core/ctx.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { insertEvent } from '../store/outbox.ts';
import { getEndpoint } from '../store/webhook-endpoints.ts';
import { getDelivery, type WebhookDelivery } from '../store/webhook-deliveries.ts';
import { enqueueDelivery, handOffAfterCommit, leaseFor } from '../webhooks/fan-out.ts';
import { PING_EVENT_TYPE } from '../contract/event-types.ts';
import { presentEndpoint } from '../contract/webhook-present.ts';
import { eventEnvelope } from './record-event.ts';
import { requireWebhookAccess } from './webhook-endpoints.ts';

export const sendTestWebhook: Action<{ id: string }, WebhookDelivery> = async ({ ctx, input }) => {
  requireWebhookAccess(ctx);
  const endpoint = await getEndpoint(ctx.tx, ctx.branchId, ctx.mode, input.id);
  if (endpoint === undefined) throw notFound('webhook endpoint');
  if (endpoint.disabled)
    throw new AppError('conflict', 'This endpoint is disabled; enable it (PATCH with "disabled": false) before sending a test event.');
  const now = ctx.services.clock.now();
  const id = newId('event', now);
  const body = eventEnvelope(ctx, id, PING_EVENT_TYPE, now, { object: presentEndpoint(endpoint, now) });
  await insertEvent(ctx.tx, {
    id,
    accountId: ctx.accountId,
    branchId: ctx.branchId,
    mode: ctx.mode,
    type: PING_EVENT_TYPE,
    createdAt: now,
    body,
  });
  const made = (await enqueueDelivery(
    ctx.tx,
    {
      endpointId: endpoint.id,
      endpointFailing: endpoint.failingSince !== null,
      accountId: ctx.accountId,
      branchId: ctx.branchId,
      mode: ctx.mode,
      eventId: id,
      eventType: PING_EVENT_TYPE,
      now,
    },
    leaseFor(ctx, { id: endpoint.id, failing: endpoint.failingSince !== null }),
  ))!;
  handOffAfterCommit(ctx, made.job === null ? [] : [made.job]);
  return (await getDelivery(ctx.tx, ctx.branchId, ctx.mode, made.deliveryId))!;
};
