// POST /v1/webhook_endpoints/{id}/test: a `ping` event to this endpoint only, whatever its
// enabled_events, through the same outbox, signature and retries as every other event. The event
// is recorded like any other (it appears in GET /v1/events, and the event sink makes its delivery
// and job), with this endpoint as its only audience, so its delivery log reads the same.
import type { Action } from '../core/ctx.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { getEndpoint } from '../store/webhook-endpoints.ts';
import { listDeliveries, type WebhookDelivery } from '../store/webhook-deliveries.ts';
import { ALL_EVENTS, PING_EVENT_TYPE } from '../contract/event-types.ts';
import { presentEndpoint } from '../contract/webhook-present.ts';
import { recordEvent, transactionWrites } from './record-event.ts';
import { requireWebhookAccess } from './webhook-endpoints.ts';

export const sendTestWebhook: Action<{ id: string }, WebhookDelivery> = async ({ ctx, input }) => {
  requireWebhookAccess(ctx);
  const endpoint = await getEndpoint(ctx.tx, ctx.branchId, ctx.mode, input.id);
  if (endpoint === undefined) throw notFound('webhook endpoint');
  if (endpoint.disabled)
    throw new AppError('conflict', 'This endpoint is disabled; enable it (PATCH with "disabled": false) before sending a test event.');
  const now = ctx.services.clock.now();
  // Its one subscriber is this endpoint, wanting every event: the ping goes nowhere else.
  const audience = [{ id: endpoint.id, enabledEvents: [ALL_EVENTS], failing: endpoint.failingSince !== null }];
  const data = { object: presentEndpoint(endpoint, now) };
  const eventId = await recordEvent(ctx, PING_EVENT_TYPE, data, transactionWrites(ctx.tx, audience));
  const made = await listDeliveries(ctx.tx, ctx.branchId, ctx.mode, endpoint.id, { eventId, limit: 1 });
  return made.data[0]!;
};
