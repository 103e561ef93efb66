// Job kinds `reminder` and `snooze_end`: decide and start the ring in one transaction (which also
// marks the job done and schedules the next reminder), then try the channels. What the attempt
// does not finish, the ring's own outbox job (ring:<ticket>:<seq>) does.
import type { Services } from '../actions/ctx.ts';
import type { Mode } from '../store/tenancy.ts';
import type { Task } from './runner.ts';
import { attemptRing } from '../actions/perform-ring.ts';
import {
  startReminder,
  startSnoozeEndRing,
  type AutoRingDecision,
  type ReminderPayload,
  type SnoozeEndPayload,
} from '../actions/reminders.ts';
import type { TxCtx } from '../actions/ctx.ts';
import { ctxForBranch } from './tasks.ts';

/**
 * No caller waits on a job, so its ring attempt gets longer than the in-line one, yet well inside
 * the job's lease; a send still in flight after it is looked at again by the ring job's next try.
 */
export const JOB_RING_DEADLINE_MS = 10_000;

function autoRingTask<P extends { branch_id: string; mode: string }>(
  name: string,
  start: (ctx: TxCtx, p: P) => Promise<AutoRingDecision>,
): Task {
  return async (services: Services, payload) => {
    const p = payload as P;
    const ctx = await ctxForBranch(services, String(p.branch_id), p.mode as Mode, name);
    if (ctx === null) return;
    const decision = await services.db.write((tx) => start({ ...ctx, tx }, p));
    if ('retryAt' in decision) return { retryAt: decision.retryAt };
    if ('ring' in decision) {
      const finish = await attemptRing(ctx, decision.ring.ringId, JOB_RING_DEADLINE_MS);
      await services.db.write((tx) => finish(tx));
    }
  };
}

export function autoRingTasks(): Array<[string, Task]> {
  return [
    ['reminder', autoRingTask<ReminderPayload>('reminder', startReminder)],
    ['snooze_end', autoRingTask<SnoozeEndPayload>('snooze-end', startSnoozeEndRing)],
  ];
}
