// POST /v1/webhook_deliveries/{id}/retry: one more attempt, now, whatever the delivery's state
// (a succeeded one is sent again). It runs as a job of its own, so the automatic schedule is not
// touched: if the manual attempt succeeds, a pending delivery is done; if it fails, the delivery
// keeps its state and its next automatic attempt. A second click before the attempt has run
// queues nothing more (the job key holds the attempt count).
import type { Action } from '../core/ctx.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { enqueueJob, newJob } from '../store/outbox.ts';
import { getDelivery } from '../store/webhook-deliveries.ts';
import { getEndpoint } from '../store/webhook-endpoints.ts';
import { WEBHOOK_JOB, handOffAfterCommit } from '../webhooks/fan-out.ts';
import { requireWebhookAccess } from './webhook-endpoints.ts';
import { readWebhookDelivery, type DeliveryWithAttempts } from './read-webhooks.ts';

/** Answers the delivery as it now is, with its attempts so far, read in the retry's transaction. */
export const retryWebhookDelivery: Action<{ id: string }, DeliveryWithAttempts> = async ({ ctx, input }) => {
  requireWebhookAccess(ctx);
  const delivery = await getDelivery(ctx.tx, ctx.branchId, ctx.mode, input.id);
  if (delivery === undefined) throw notFound('webhook delivery');
  const endpoint = await getEndpoint(ctx.tx, ctx.branchId, ctx.mode, delivery.endpointId);
  if (endpoint === undefined) throw notFound('webhook delivery');
  if (endpoint.disabled)
    throw new AppError('conflict', 'The endpoint of this delivery is disabled; enable it (PATCH with "disabled": false) before retrying.');
  const now = ctx.services.clock.now();
  await enqueueJob(
    ctx.tx,
    newJob(WEBHOOK_JOB, `retry:${delivery.id}:${delivery.attempts}`, { delivery_id: delivery.id, manual: true }, now, now, {
      accountId: ctx.accountId,
      endpointId: endpoint.id,
    }),
  );
  handOffAfterCommit(ctx, []);
  return readWebhookDelivery({ ctx, input: { id: delivery.id } });
};
