// Fans an event out to the endpoints that want it, inside the event's own transaction: one
// delivery row and one outbox job per (event, endpoint). Committed together with the change that
// caused the event, or not at all — so a delivery is never lost and never made for a change that
// was rolled back. An idempotent replay runs no action, hence records no event and no delivery.
import type { TxCtx } from '../actions/ctx.ts';
import type { EventHook } from '../actions/record-event.ts';
import type { Tx } from '../store/db.ts';
import type { Mode } from '../store/tenancy.ts';
import { newId } from '../domain/ids.ts';
import { enqueueJob } from '../store/outbox.ts';
import { insertDelivery } from '../store/webhook-deliveries.ts';
import { listFanOutTargets } from '../store/webhook-endpoints.ts';
import { endpointWants } from './event-types.ts';

export const WEBHOOK_JOB_KIND = 'webhook';

export const deliveryJobKey = (eventId: string, endpointId: string): string => `deliver:${eventId}:${endpointId}`;

export type DeliveryJobPayload = { delivery_id: string; manual?: boolean };

/** Creates the delivery and its job; false when this event already has one for the endpoint. */
export async function enqueueDelivery(
  tx: Tx,
  d: { endpointId: string; branchId: string; mode: Mode; eventId: string; eventType: string; now: number },
): Promise<string | null> {
  const id = newId('webhookDelivery', d.now);
  if (!(await insertDelivery(tx, { id, endpointId: d.endpointId, branchId: d.branchId, mode: d.mode, eventId: d.eventId, eventType: d.eventType, createdAt: d.now }))) {
    return null;
  }
  const payload: DeliveryJobPayload = { delivery_id: id };
  await enqueueJob(tx, { id: newId('job', d.now), kind: WEBHOOK_JOB_KIND, key: deliveryJobKey(d.eventId, d.endpointId), payload, runAt: d.now, createdAt: d.now });
  return id;
}

/** Wakes this node's runner after the commit, so an idle worker delivers within milliseconds. */
export function wakeAfterCommit(ctx: TxCtx): void {
  const wake = ctx.services.wakeJobs;
  if (wake !== undefined) ctx.tx.afterCommit(wake);
}

export function webhookFanOut(): EventHook {
  return async (ctx: TxCtx, event) => {
    const targets = await listFanOutTargets(ctx.tx, ctx.branchId, ctx.mode);
    let queued = 0;
    for (const endpoint of targets) {
      if (!endpointWants(endpoint.enabledEvents, event.type)) continue;
      const id = await enqueueDelivery(ctx.tx, {
        endpointId: endpoint.id, branchId: ctx.branchId, mode: ctx.mode, eventId: event.id, eventType: event.type, now: event.createdAt,
      });
      if (id !== null) queued++;
    }
    if (queued > 0) wakeAfterCommit(ctx);
  };
}
