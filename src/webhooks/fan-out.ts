// The event sink (src/core/events.ts): stores each event and fans it out to the endpoints that
// want it, one delivery row and one outbox job per (event, endpoint), with the writer of the
// change that caused it (its transaction, or a create's commit). Committed together with that
// change, or not at all — so a delivery is never lost and never made for a change that was rolled
// back. An idempotent replay commits nothing of its action, hence no event and no delivery. The
// only place a new event's delivery and job are built: the test ping is an event recorded with one
// subscriber, its endpoint (actions/send-test-webhook.ts).
import type { Clock } from '../core/clock.ts';
import type { Services, TxCtx } from '../core/ctx.ts';
import type { EventSink } from '../core/events.ts';
import { newId } from '../domain/ids.ts';
import { jobRow, newJob, type JobRecord } from '../store/outbox.ts';
import type { ClaimedJob } from '../core/jobs.ts';
import { defineJobKind } from '../core/job-registry.ts';
import { deliveryRow } from '../store/webhook-deliveries.ts';
import { endpointWants } from '../contract/event-types.ts';

export const WEBHOOK_JOB_KIND = 'webhook';

export const deliveryJobKey = (eventId: string, endpointId: string): string => `deliver:${eventId}:${endpointId}`;

export type DeliveryJobPayload = { delivery_id: string; manual?: boolean };

/** One attempt at one delivery (webhooks/deliver.ts). */
export const WEBHOOK_JOB = defineJobKind<DeliveryJobPayload>(WEBHOOK_JOB_KIND, 'webhook');

type Lease = { workerId: string; until: number };

/** A delivery's job written leased to this node, as its runner takes it with the commit. */
function adoptable(job: JobRecord, payloadJson: string, endpointFailing: boolean): ClaimedJob {
  return {
    id: job.id,
    kind: job.kind,
    key: job.key,
    payload: payloadJson,
    attempts: 1,
    lane: 'webhook',
    accountId: job.accountId ?? null,
    endpointId: job.endpointId ?? null,
    endpointFailing,
  };
}

/** Where this node's runner has room, the jobs go to it with the commit; otherwise it is woken. */
export function handOffAfterCommit(ctx: TxCtx, jobs: readonly ClaimedJob[]): void {
  const handOff = handOffFor(ctx.services.jobs, jobs);
  if (handOff !== null) ctx.tx.afterCommit(handOff);
}

type Runner = NonNullable<Services['jobs']>;

/** `others`: the commit also enqueued jobs nobody adopted, so the runner is woken to claim them. */
function handOffFor(runner: Runner | undefined, jobs: readonly ClaimedJob[], others = jobs.length === 0): (() => void) | null {
  if (runner === undefined) return null;
  return () => {
    if (jobs.length > 0) runner.adopt(jobs);
    if (others) runner.wake();
  };
}

/** A lease for this node's runner on a delivery to `endpoint`, when the runner has room for it. */
function leaseOf(runner: Runner | undefined, clock: Clock, accountId: string, endpoint: { id: string; failing: boolean }): Lease | null {
  const adopter = runner?.adopter({ lane: 'webhook', accountId, endpointId: endpoint.id }, endpoint.failing) ?? null;
  return adopter === null ? null : { workerId: adopter.workerId, until: clock.now() + adopter.leaseMs };
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
      const adopted: ClaimedJob[] = [];
      const at = event.createdAt;
      for (const endpoint of wanted) {
        const lease = leaseOf(runner, deps.clock, event.accountId, endpoint);
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
        const owner = { accountId: event.accountId, endpointId: endpoint.id };
        const job = newJob(WEBHOOK_JOB, deliveryJobKey(event.id, endpoint.id), payload, at, at, owner);
        const row = jobRow(lease === null ? job : { ...job, lease });
        await out.insert(row);
        if (lease !== null) adopted.push(adoptable(job, String(row.values.payload), endpoint.failing));
      }
      const handOff = handOffFor(runner, adopted, adopted.length < wanted.length);
      if (handOff !== null) out.afterCommit(handOff);
    },
  };
}
