// The event sink (src/core/events.ts): stores each event and fans it out to the endpoints that
// want it, one delivery row and one outbox job per (event, endpoint), with the writer of the
// change that caused it (its transaction, or a create's commit). Committed together with that
// change, or not at all — so a delivery is never lost and never made for a change that was rolled
// back. An idempotent replay commits nothing of its action, hence no event and no delivery.
import type { Clock } from '../core/clock.ts';
import type { Ctx, Services, TxCtx } from '../core/ctx.ts';
import type { EventSink } from '../core/events.ts';
import type { Tx } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';
import { newId } from '../domain/ids.ts';
import { enqueueJob, jobPayloadJson, jobRow } from '../store/outbox.ts';
import type { ClaimedJob } from '../core/jobs.ts';
import { defineJobKind, newJob } from '../jobs/registry.ts';
import { deliveryRow, insertDelivery } from '../store/webhook-deliveries.ts';
import { endpointWants } from './event-types.ts';

export const WEBHOOK_JOB_KIND = 'webhook';

export const deliveryJobKey = (eventId: string, endpointId: string): string => `deliver:${eventId}:${endpointId}`;

export type DeliveryJobPayload = { delivery_id: string; manual?: boolean };

/** One attempt at one delivery (webhooks/deliver.ts). */
export const WEBHOOK_JOB = defineJobKind<DeliveryJobPayload>(WEBHOOK_JOB_KIND);

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
  const job = newJob(WEBHOOK_JOB, deliveryJobKey(d.eventId, d.endpointId), payload, d.now, d.now);
  if (!(await enqueueJob(tx, lease === null ? job : { ...job, lease })) || lease === null) return { deliveryId: id, job: null };
  return { deliveryId: id, job: { id: job.id, kind: job.kind, key: job.key, payload: jobPayloadJson(payload)!, attempts: 1 } };
}

/** Where this node's runner has room, the jobs go to it with the commit; otherwise it is woken. */
export function handOffAfterCommit(ctx: TxCtx, jobs: readonly ClaimedJob[]): void {
  const handOff = handOffFor(ctx.services.jobs, jobs);
  if (handOff !== null) ctx.tx.afterCommit(handOff);
}

type Runner = NonNullable<Services['jobs']>;

function handOffFor(runner: Runner | undefined, jobs: readonly ClaimedJob[]): (() => void) | null {
  if (runner === undefined) return null;
  return jobs.length > 0 ? () => runner.adopt(jobs) : () => runner.wake();
}

function leaseOf(runner: Runner | undefined, clock: Clock): Lease | null {
  const adopter = runner?.adopter() ?? null;
  return adopter === null ? null : { workerId: adopter.workerId, until: clock.now() + adopter.leaseMs };
}

export function leaseFor(ctx: Ctx): Lease | null {
  return leaseOf(ctx.services.jobs, ctx.services.clock);
}

/**
 * The event sink of a running service: for each endpoint that wants the event, a delivery and its job, already leased to this node's runner when it has room (handed
 * over with the commit, so the first attempt needs no claim). `jobs` is read at each event: the
 * runner is made after the services that record events.
 */
export function webhookFanOut(deps: { clock: Clock; jobs: () => Runner | undefined }): EventSink {
  return {
    async record(event, out) {
      const wanted = out.subscribers.filter((endpoint) => endpointWants(endpoint.enabledEvents, event.type));
      if (wanted.length === 0) return;
      const runner = deps.jobs();
      const lease = leaseOf(runner, deps.clock);
      const adopted: ClaimedJob[] = [];
      const at = event.createdAt;
      for (const endpoint of wanted) {
        const deliveryId = newId('webhookDelivery', at);
        await out.insert(
          deliveryRow({
            id: deliveryId,
            endpointId: endpoint.id,
            branchId: event.branchId,
            mode: event.mode,
            eventId: event.id,
            eventType: event.type,
            createdAt: at,
          }),
        );
        const payload: DeliveryJobPayload = { delivery_id: deliveryId };
        const job = jobRow({
          id: newId('job', at),
          kind: WEBHOOK_JOB_KIND,
          key: deliveryJobKey(event.id, endpoint.id),
          payload,
          runAt: at,
          createdAt: at,
          ...(lease === null ? {} : { lease }),
        });
        await out.insert(job);
        if (lease !== null)
          adopted.push({
            id: String(job.values.id),
            kind: WEBHOOK_JOB_KIND,
            key: String(job.values.key),
            payload: String(job.values.payload),
            attempts: 1,
          });
      }
      const handOff = handOffFor(runner, adopted);
      if (handOff !== null) out.afterCommit(handOff);
    },
  };
}
