// Fans an event out to the endpoints that want it, inside the event's own transaction: one
// delivery row and one outbox job per (event, endpoint). Committed together with the change that
// caused the event, or not at all — so a delivery is never lost and never made for a change that
// was rolled back. An idempotent replay runs no action, hence records no event and no delivery.
import type { Ctx, Services, TxCtx } from '../actions/ctx.ts';
import type { EventHook } from '../actions/record-event.ts';
import type { Tx } from '../store/db.ts';
import type { Mode } from '../store/tenancy.ts';
import { newId } from '../domain/ids.ts';
import { enqueueJob, jobPayloadJson, type ClaimedJob } from '../store/outbox.ts';
import { insertDelivery } from '../store/webhook-deliveries.ts';
import { listFanOutTargets } from '../store/webhook-endpoints.ts';
import { endpointWants } from './event-types.ts';

export const WEBHOOK_JOB_KIND = 'webhook';

export const deliveryJobKey = (eventId: string, endpointId: string): string => `deliver:${eventId}:${endpointId}`;

export type DeliveryJobPayload = { delivery_id: string; manual?: boolean };

type Lease = { workerId: string; until: number };

/**
 * Creates the delivery and its job; null when this event already has one for the endpoint. With
 * a lease, the job is written already claimed by that worker and returned for it to run.
 */
export async function enqueueDelivery(
  tx: Tx,
  d: { endpointId: string; branchId: string; mode: Mode; eventId: string; eventType: string; now: number },
  lease: Lease | null = null,
): Promise<{ deliveryId: string; job: ClaimedJob | null } | null> {
  const id = newId('webhookDelivery', d.now);
  if (
    !(await insertDelivery(tx, {
      id,
      endpointId: d.endpointId,
      branchId: d.branchId,
      mode: d.mode,
      eventId: d.eventId,
      eventType: d.eventType,
      createdAt: d.now,
    }))
  ) {
    return null;
  }
  const payload: DeliveryJobPayload = { delivery_id: id };
  const job = {
    id: newId('job', d.now),
    kind: WEBHOOK_JOB_KIND,
    key: deliveryJobKey(d.eventId, d.endpointId),
    payload,
    runAt: d.now,
    createdAt: d.now,
  };
  if (!(await enqueueJob(tx, lease === null ? job : { ...job, lease })) || lease === null) return { deliveryId: id, job: null };
  return { deliveryId: id, job: { id: job.id, kind: job.kind, key: job.key, payload: jobPayloadJson(payload)!, attempts: 1 } };
}

/** Where this node's runner has room, the jobs go to it with the commit; otherwise it is woken. */
export function handOffAfterCommit(ctx: TxCtx, jobs: readonly ClaimedJob[]): void {
  const handOff = handOffFor(ctx.services, jobs);
  if (handOff !== null) ctx.tx.afterCommit(handOff);
}

/** What to run once deliveries and their jobs are committed (see handOffAfterCommit). */
export function handOffFor(services: Services, jobs: readonly ClaimedJob[]): (() => void) | null {
  const runner = services.jobs;
  if (runner === undefined) return null;
  return jobs.length > 0 ? () => runner.adopt(jobs) : () => runner.wake();
}

export function leaseFor(ctx: Ctx): Lease | null {
  const adopter = ctx.services.jobs?.adopter() ?? null;
  return adopter === null ? null : { workerId: adopter.workerId, until: ctx.services.clock.now() + adopter.leaseMs };
}

const fanOutHooks = new WeakSet<EventHook>();

/**
 * Whether `hook` is the fan-out below: a create that writes its event and deliveries in one
 * statement (src/store/postgres/create-ticket-statement.ts) does this hook's work in SQL, and
 * must not be taken while any other hook would expect to run in the event's transaction.
 */
export function isWebhookFanOut(hook: EventHook): boolean {
  return fanOutHooks.has(hook);
}

export function webhookFanOut(): EventHook {
  const hook: EventHook = async (ctx: TxCtx, event) => {
    const targets = event.targets ?? (await listFanOutTargets(ctx.tx, ctx.branchId, ctx.mode));
    const wanted = targets.filter((endpoint) => endpointWants(endpoint.enabledEvents, event.type));
    if (wanted.length === 0) return;
    const lease = leaseFor(ctx);
    const adopted: ClaimedJob[] = [];
    let queued = 0;
    for (const endpoint of wanted) {
      const made = await enqueueDelivery(
        ctx.tx,
        {
          endpointId: endpoint.id,
          branchId: ctx.branchId,
          mode: ctx.mode,
          eventId: event.id,
          eventType: event.type,
          now: event.createdAt,
        },
        lease,
      );
      if (made === null) continue;
      queued++;
      if (made.job !== null) adopted.push(made.job);
    }
    if (queued > 0) handOffAfterCommit(ctx, adopted);
  };
  fanOutHooks.add(hook);
  return hook;
}
