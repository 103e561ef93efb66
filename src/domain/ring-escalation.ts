// The policy of a ready ticket's rings, step by step: which channels each ring uses, when each
// reminder falls due, and the keys the ring's jobs are known by in the outbox. Pure, so it is
// unit-tested over the branch settings; the ring module only carries it out
// (actions/ring-schedule.ts puts the reminders in the outbox, ring/automatic.ts rings them). The
// steps are the branch's escalation ladder (domain/escalation-ladder.ts, decision 0032), or the
// ladder its reminder settings always made.
import type { BranchSettings } from '../core/branch-settings.ts';
import { EVERY_CHANNEL } from './channel-choice.ts';
import type { ChannelChoice, FreeChannel } from '../core/ring.ts';
import { ladderFromReminders } from './escalation-ladder.ts';
import { channelDeclaration } from '../core/channel-catalogue.ts';
import type { LadderStep } from '../core/branch-settings.ts';
import type { RingReason } from '../core/ring.ts';

/**
 * Reminder `n` (1-based) of an unacknowledged ready ticket: it falls due `delayMs` after the latest
 * of the ready, the last ring and the end of a snooze, and rings through `channels`. `delayMs` is
 * the gap between its step and the one before it, so a customer nobody interrupts gets each step
 * at its `after_seconds`.
 */
export type ReminderStep = { n: number; delayMs: number; channels: ChannelChoice };

/** The branch's ladder: its own, or the one its reminder settings make. */
export function ladderOf(settings: BranchSettings): readonly LadderStep[] {
  return settings.escalation_ladder ?? ladderFromReminders(settings.reminder_delay_seconds, settings.reminder_count);
}

/** A step's channels, in stage-1 order (the boards' call-out is the channel the catalogue's editor shows as `call-out`). */
export function stepChannels(step: LadderStep): ChannelChoice {
  const free: FreeChannel[] = EVERY_CHANNEL.free.filter((c) =>
    channelDeclaration(c).ladder.editor === 'call-out' ? step.call_out : (step.channels as readonly string[]).includes(c),
  );
  return { free, sms: step.sms };
}

/** Reminder `n`, or null when the branch has none (reminders off, or past the last step). */
export function reminderStep(settings: BranchSettings, n: number): ReminderStep | null {
  const ladder = ladderOf(settings);
  if (!Number.isInteger(n) || n < 1 || n > ladder.length) return null;
  const step = ladder[n - 1]!;
  const previous = n === 1 ? 0 : ladder[n - 2]!.after_seconds;
  return { n, delayMs: (step.after_seconds - previous) * 1000, channels: stepChannels(step) };
}

/**
 * The channels of a ring: a reminder's are its step's; ready, a manual ring and the end of a
 * snooze try everything the customer has.
 */
export function ringChannels(settings: BranchSettings, reason: RingReason, reminder?: number): ChannelChoice {
  if (reason === 'reminder') return reminderStep(settings, reminder ?? 1)?.channels ?? EVERY_CHANNEL;
  return EVERY_CHANNEL;
}

/** What reminder n looks at: the ticket as it is now. Times in ms since the epoch. */
export type LadderFacts = {
  now: number;
  ready: boolean;
  readyAt: number | null;
  acknowledgedAt: number | null;
  lastRingAt: number | null;
  snoozedUntil: number | null;
  /** The text of the ticket's latest ring failed (refused, undelivered, failed): the next step need not wait. */
  lastTextFailed: boolean;
};

export type LadderDecision = { ring: ReminderStep } | { waitUntil: number } | { stop: 'closed' | 'acknowledged' | 'no-step' };

/** How soon a reminder looks again while the snooze's own ring is still to be recorded. */
export const SNOOZE_RING_WAIT_MS = 5_000;

/**
 * The ladder's decision for reminder `n`: stop (the ticket is no longer ready, the customer said
 * "On my way" since the ready, or the ladder has no such step), wait, or ring the step now.
 *
 * The step is due its delay after the latest of the ready, the last ring (a manual ring moves it
 * later) and the end of a snooze; at once after the last ring when that ring's text failed. When a
 * snooze has ended and its ring is not recorded yet, its ring comes first (it may be running beside
 * this job), but holds the step back by one delay at most.
 */
export function ladderDecision(settings: BranchSettings, n: number, f: LadderFacts): LadderDecision {
  if (!f.ready) return { stop: 'closed' };
  if (f.acknowledgedAt !== null && f.readyAt !== null && f.acknowledgedAt >= f.readyAt) return { stop: 'acknowledged' };
  const step = reminderStep(settings, n);
  if (step === null) return { stop: 'no-step' };
  const delay = f.lastTextFailed ? 0 : step.delayMs;
  const due = Math.max(f.lastRingAt ?? 0, f.snoozedUntil ?? 0, f.readyAt ?? 0) + delay;
  if (f.now < due) return { waitUntil: due };
  const snoozeRingPending = f.snoozedUntil !== null && (f.lastRingAt ?? 0) < f.snoozedUntil;
  const latest = due + step.delayMs;
  if (snoozeRingPending && f.now < latest) return { waitUntil: Math.min(f.now + SNOOZE_RING_WAIT_MS, latest) };
  return { ring: step };
}

// The keys of the ring's jobs in the outbox. A job's key makes it happen once across nodes and
// restarts, so the scheduler that writes a job and the ring that looks one up must build the same
// key: one definition each, here, below both.

/** One per (ticket, ring number), so a ring is finished by one job. */
export const ringJobKey = (ticketId: string, seq: number): string => `ring:${ticketId}:${seq}`;
export const reminderKey = (ticketId: string, n: number): string => `remind:${ticketId}:${n}`;
export const snoozeEndKey = (ticketId: string, until: number): string => `snooze:${ticketId}:${until}`;
