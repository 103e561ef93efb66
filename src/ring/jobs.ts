// The ring module's job handlers (kinds and keys in actions/ring-schedule.ts). Each runs its ring through
// runRing, as a request does, with a longer deadline: no caller waits on a job.
import type { Action, Ctx } from '../core/ctx.ts';
import { Continuation } from '../actions/continuation.ts';
import { finish } from '../write/after-commit.ts';
import { write } from '../write/idempotent-write.ts';
import type { JobHandler, JobRegistry } from '../core/job-registry.ts';
import { ctxForBranch } from '../actions/system-ctx.ts';
import type { Mode } from '../core/tenancy.ts';
import { startReminder, startSnoozeEndRing, type AutomaticDecision } from './automatic.ts';
import { runRing, type RingRun, type RingToRun } from './run.ts';
import { REMINDER_JOB, RING_JOB, RING_JOB_FOLLOW_UP_MS, SNOOZE_END_JOB, type RingJobPayload } from '../actions/ring-schedule.ts';

/**
 * A job's ring attempt gets longer than the in-line one, yet well inside the job's lease; a send
 * still in flight after it is looked at again by the ring job's next try.
 */
export const JOB_RING_DEADLINE_MS = 10_000;

/**
 * The ring job's last try records what is known, so a channel that never answers cannot keep a
 * ring open; a send still in flight or claimed is waited for even then (runRing's `final`).
 */
const RING_JOB_MAX_ATTEMPTS = 5;

/** The ring's attempt and the transaction that records it, run by the write path as any continuation's. */
function ringNow(ctx: Ctx, target: RingToRun, final = false): Promise<RingRun> {
  return finish(ctx, new Continuation(null, (c) => runRing(c, target, JOB_RING_DEADLINE_MS, { final })));
}

/** Finishes a ring that its first attempt did not (the deadline cut it short, or a crash). */
const ringJob: JobHandler<RingJobPayload> = async (services, p, job) => {
  const ctx = await ctxForBranch(services, p.branch_id, p.mode, 'ring-job');
  if (ctx === null) return;
  const { open } = await ringNow(ctx, { id: p.ring_id }, job.attempts >= RING_JOB_MAX_ATTEMPTS);
  // A channel still sending (hung, or another node's attempt in flight) leaves the ring open:
  // look again shortly. A send's claim left by a dead process is resolved by the first try after
  // it is stale (send-once.ts), so the retries, not the count of tries, outlast it.
  if (open) return { retryAt: services.clock.now() + RING_JOB_FOLLOW_UP_MS };
};

/** A reminder or a snooze's end: decide and start the ring in one transaction, then run it. */
function automaticRing<P extends { branch_id: string; mode: Mode }>(name: string, start: Action<P, AutomaticDecision>): JobHandler<P> {
  return async (services, p) => {
    const ctx = await ctxForBranch(services, p.branch_id, p.mode, name);
    if (ctx === null) return;
    const decision = await write(ctx, { verb: start, input: p });
    if ('retryAt' in decision) return { retryAt: decision.retryAt };
    // What this attempt does not finish, the ring's own job does.
    if ('ring' in decision) await ringNow(ctx, decision.ring);
  };
}

export function registerRingJobs(registry: JobRegistry): JobRegistry {
  return registry
    .set(RING_JOB, ringJob)
    .set(REMINDER_JOB, automaticRing('reminder', startReminder))
    .set(SNOOZE_END_JOB, automaticRing('snooze-end', startSnoozeEndRing));
}
