// Automatic rings (PRODUCT.md §2): a ready ticket not acknowledged is rung again, step by step of
// the branch's escalation ladder (domain/ring-escalation.ts decides); a snooze rings again when it ends. Each job
// decides and starts its ring in ONE transaction, which also marks the job done and schedules the
// next reminder, so a crash or restart neither loses a reminder nor rings it twice; jobs.ts then
// runs the ring.
import type { Action } from '../core/ctx.ts';
import { getTicket } from '../store/tickets.ts';
import { latestSmsOfTicket } from '../store/sms-messages.ts';
import { getBranch } from '../store/tenancy.ts';
import { completeJobByKey } from '../store/outbox.ts';
import { ladderDecision, reminderKey, ringChannels, snoozeEndKey } from '../domain/ring-escalation.ts';
import type { OpenRing } from './run.ts';
import { reminderJob, type ReminderPayload, type SnoozeEndPayload } from '../actions/ring-schedule.ts';
import { startRing, type StartedRing } from './start.ts';
import { applyRingTransition } from './transition.ts';

/** What a reminder or snooze job decided: ring now, look again later, or nothing to do. */
export type AutomaticDecision = { ring: OpenRing } | { retryAt: number } | { done: true };

const decided = (started: StartedRing): AutomaticDecision => ('open' in started ? { ring: started.open } : { done: true });

/**
 * Reminder n: the ladder's decision (escalation.ts) over the ticket as it is now, and its ring.
 * Acknowledged, closed or past the last step: nothing, and no more reminders.
 */
export const startReminder: Action<ReminderPayload, AutomaticDecision> = async ({ ctx, input: p }) => {
  const now = ctx.services.clock.now();
  const ticket = await getTicket(ctx.tx, ctx.branchId, ctx.mode, p.ticket_id);
  const branch = await getBranch(ctx.tx, ctx.branchId);
  if (ticket === undefined || branch === undefined) return { done: true };
  const text = ticket.status === 'ready' ? await latestSmsOfTicket(ctx.tx, ticket.id) : undefined;
  const decision = ladderDecision(branch.settings, p.n, {
    now,
    ready: ticket.status === 'ready',
    readyAt: ticket.readyAt,
    acknowledgedAt: ticket.acknowledgedAt,
    lastRingAt: ticket.lastRingAt,
    snoozedUntil: ticket.snoozedUntil,
    lastTextFailed: text?.failed === true && text.seq === ticket.rings,
  });
  if ('stop' in decision) return { done: true };
  if ('waitUntil' in decision) return { retryAt: decision.waitUntil };
  const { rung } = await applyRingTransition(ctx, ticket.id, 'remind');
  const next = reminderJob(ctx, ticket.id, rung.branch.settings, p.n + 1, now);
  const started = await startRing(ctx, rung, { reason: 'reminder', channels: decision.ring.channels, jobs: next === null ? [] : [next] });
  await completeJobByKey(ctx.tx, reminderKey(ticket.id, p.n), now);
  return decided(started);
};

/** The end of a snooze rings once, unless the ticket closed or the snooze was replaced or answered. */
export const startSnoozeEndRing: Action<SnoozeEndPayload, AutomaticDecision> = async ({ ctx, input: p }) => {
  const now = ctx.services.clock.now();
  const ticket = await getTicket(ctx.tx, ctx.branchId, ctx.mode, p.ticket_id);
  // A newer snooze changed snoozed_until; "On my way" cleared it: either way this one is void.
  if (ticket === undefined || ticket.status !== 'ready' || ticket.snoozedUntil !== Number(p.until)) return { done: true };
  const { rung } = await applyRingTransition(ctx, ticket.id, 'snooze_end', { verb: 'ring at the end of the snooze' });
  const started = await startRing(ctx, rung, { reason: 'snooze_end', channels: ringChannels(rung.branch.settings, 'snooze_end') });
  await completeJobByKey(ctx.tx, snoozeEndKey(ticket.id, p.until), now);
  return decided(started);
};
