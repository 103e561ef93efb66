// The ring module's jobs in the outbox, and when they fall due: the ring's own job, which finishes
// a ring its first attempt did not (ring:<ticket>:<seq>); the reminders (remind:<ticket>:<n>); the
// ring at the end of a snooze (snooze:<ticket>:<until>). Every one is written in the transaction of
// the change that causes it, and its key makes it happen once across nodes and restarts. Their
// handlers are in ring/jobs.ts. It sits with the verbs, below the ring, because a verb (a snooze)
// and a channel (a failed text hastens the next reminder) schedule these jobs as the ring does.
import type { Ctx, TxCtx } from '../core/ctx.ts';
import { defineJobKind } from '../core/job-registry.ts';
import { enqueueJob, hastenJobs, newJob, type JobRecord } from '../store/outbox.ts';
import type { Tx } from '../core/db.ts';
import { MAX_LADDER_STEPS } from '../domain/escalation-ladder.ts';
import type { RingingTicket, RingRecord } from '../store/rings.ts';
import type { Mode } from '../core/tenancy.ts';
import type { BranchSettings } from '../core/branch-settings.ts';
import { reminderKey, reminderStep, ringJobKey, snoozeEndKey } from '../domain/ring-escalation.ts';

export type RingJobPayload = { ring_id: string; branch_id: string; mode: Mode };
export type ReminderPayload = { ticket_id: string; branch_id: string; mode: Mode; n: number };
export type SnoozeEndPayload = { ticket_id: string; branch_id: string; mode: Mode; until: number };

export const RING_JOB = defineJobKind<RingJobPayload>('ring');
export const REMINDER_JOB = defineJobKind<ReminderPayload>('reminder');
export const SNOOZE_END_JOB = defineJobKind<SnoozeEndPayload>('snooze_end');

/** How long after its first attempt's deadline the ring's job looks at the ring (and between its tries). */
export const RING_JOB_FOLLOW_UP_MS = 5_000;

/** The ring's job: due once the in-line attempt's deadline has passed, with a margin. */
export function ringJob(ctx: Ctx, ring: RingRecord): JobRecord {
  const now = ctx.services.clock.now();
  const runAt = now + ctx.services.config.ring.inlineDeadlineMs + RING_JOB_FOLLOW_UP_MS;
  const payload: RingJobPayload = { ring_id: ring.id, branch_id: ctx.branchId, mode: ctx.mode };
  return newJob(RING_JOB, ringJobKey(ring.ticketId, ring.seq), payload, runAt, now, { accountId: ctx.accountId });
}

/**
 * Reminder `n`, due its step's delay after `from` (the ready, or the ring that precedes it); null
 * when the branch has no such reminder.
 */
export function reminderJob(ctx: Ctx, ticketId: string, settings: BranchSettings, n: number, from: number): JobRecord | null {
  const step = reminderStep(settings, n);
  if (step === null) return null;
  const payload: ReminderPayload = { ticket_id: ticketId, branch_id: ctx.branchId, mode: ctx.mode, n };
  return newJob(REMINDER_JOB, reminderKey(ticketId, n), payload, from + step.delayMs, ctx.services.clock.now(), {
    accountId: ctx.accountId,
  });
}

/** For a ready, to insert with its ring: the first reminder. */
export function firstReminderJob(ctx: Ctx, rung: RingingTicket): JobRecord | null {
  return reminderJob(ctx, rung.ticket.id, rung.branch.settings, 1, rung.ticket.readyAt ?? ctx.services.clock.now());
}

/**
 * A text of the ticket failed: its pending reminder falls due now, and the ladder's decision
 * (which sees the failure) rings the next step without waiting for its delay. The keys are listed
 * (a ladder is bounded) so that the statement finds them by the jobs' unique key.
 */
export async function hastenReminder(tx: Tx, ticketId: string, now: number): Promise<void> {
  await hastenJobs(
    tx,
    Array.from({ length: MAX_LADDER_STEPS }, (_, i) => reminderKey(ticketId, i + 1)),
    now,
  );
}

/** The ring at the end of a snooze: a durable job, so a restart neither loses nor repeats it. */
export async function scheduleSnoozeEnd(ctx: TxCtx, ticketId: string, until: number): Promise<void> {
  const payload: SnoozeEndPayload = { ticket_id: ticketId, branch_id: ctx.branchId, mode: ctx.mode, until };
  const job = newJob(SNOOZE_END_JOB, snoozeEndKey(ticketId, until), payload, until, ctx.services.clock.now(), { accountId: ctx.accountId });
  await enqueueJob(ctx.tx, job);
}
