// Automatic rings (PRODUCT.md §2): a ready ticket not acknowledged after the branch's reminder
// delay is rung again, up to its reminder count; a snooze rings again when it ends. Both are
// durable jobs in the outbox with unique keys (remind:<ticket>:<n>, snooze:<ticket>:<until>), so a
// restart neither loses them nor runs them twice: the transaction that starts a ring also marks
// its job done and schedules the next reminder.
import type { Ctx, TxCtx } from './ctx.ts';
import type { Ticket } from '../store/tickets.ts';
import { getTicket } from '../store/tickets.ts';
import { getBranch } from '../store/tenancy.ts';
import { completeJobByKey, type JobRecord } from '../store/outbox.ts';
import type { RingingTicket } from '../store/rings.ts';
import { newId } from '../domain/ids.ts';
import { applyRingTransition } from './transition.ts';
import { recordRing } from './ring-ticket.ts';

export type ReminderPayload = { ticket_id: string; branch_id: string; mode: string; n: number };
export type SnoozeEndPayload = { ticket_id: string; branch_id: string; mode: string; until: number };

/** What a reminder or snooze job decided: ring now, look again later, or nothing to do. */
export type AutoRingDecision = { ring: { ringId: string } } | { retryAt: number } | { done: true };

/** How soon a reminder looks again while the snooze's own ring is still to be recorded. */
const SNOOZE_RING_WAIT_MS = 5_000;

export const reminderKey = (ticketId: string, n: number): string => `remind:${ticketId}:${n}`;

function reminderJob(ctx: Ctx, ticketId: string, n: number, runAt: number): JobRecord {
  const now = ctx.services.clock.now();
  const payload: ReminderPayload = { ticket_id: ticketId, branch_id: ctx.branchId, mode: ctx.mode, n };
  return { id: newId('job', now), kind: 'reminder', key: reminderKey(ticketId, n), payload, runAt, createdAt: now };
}

/**
 * For markReady, to insert with its ring: the first reminder, due a delay after ready; none when
 * the branch has reminders off.
 */
export function firstReminderJob(ctx: Ctx, rung: RingingTicket): JobRecord | null {
  const { reminder_count: count, reminder_delay_seconds: delaySeconds } = rung.branch.settings;
  if (count < 1) return null;
  return reminderJob(ctx, rung.ticket.id, 1, (rung.ticket.readyAt ?? ctx.services.clock.now()) + delaySeconds * 1000);
}

/** The customer answered a ring since the ticket became ready ("On my way"). */
const acknowledged = (t: Ticket): boolean => t.acknowledgedAt !== null && t.readyAt !== null && t.acknowledgedAt >= t.readyAt;

/**
 * Reminder n. It rings only when the delay has passed since the last ring (a manual ring or a
 * snooze's ring moves it later) and since the end of any snooze (it waits for the snooze and its
 * ring, then a delay more). Acknowledged, closed or over the count: nothing, and no more reminders.
 */
export async function startReminder(ctx: TxCtx, p: ReminderPayload): Promise<AutoRingDecision> {
  const now = ctx.services.clock.now();
  const ticket = await getTicket(ctx.tx, ctx.branchId, ctx.mode, p.ticket_id);
  const branch = await getBranch(ctx.tx, ctx.branchId);
  if (ticket === undefined || branch === undefined || ticket.status !== 'ready' || acknowledged(ticket)) return { done: true };
  const { reminder_count: count, reminder_delay_seconds: delaySeconds } = branch.settings;
  if (p.n > count) return { done: true };
  // Due a delay after the latest of: the last ring, the end of a snooze (whose own ring comes
  // first, even if both jobs fall due in the same instant).
  const due = Math.max(ticket.lastRingAt ?? 0, ticket.snoozedUntil ?? 0, ticket.readyAt ?? 0) + delaySeconds * 1000;
  if (now < due) return { retryAt: due };
  // The snooze has ended but its ring is not recorded yet: its job runs beside this one (a runner
  // takes due jobs together) or has not run. Its ring comes first and moves this reminder a delay
  // later; a snooze ring that never comes holds the reminder back by one delay at most.
  const snoozeRingPending = ticket.snoozedUntil !== null && (ticket.lastRingAt ?? 0) < ticket.snoozedUntil;
  const latest = due + delaySeconds * 1000;
  if (snoozeRingPending && now < latest) return { retryAt: Math.min(now + SNOOZE_RING_WAIT_MS, latest) };
  const { rung } = await applyRingTransition(ctx, ticket.id, 'remind');
  const ring = await recordRing(
    ctx,
    rung,
    'reminder',
    p.n < count ? [reminderJob(ctx, ticket.id, p.n + 1, now + delaySeconds * 1000)] : [],
  );
  await completeJobByKey(ctx.tx, reminderKey(ticket.id, p.n), now);
  return { ring: { ringId: ring.ringId } };
}

/** The end of a snooze rings once, unless the ticket closed or the snooze was replaced or answered. */
export async function startSnoozeEndRing(ctx: TxCtx, p: SnoozeEndPayload): Promise<AutoRingDecision> {
  const now = ctx.services.clock.now();
  const ticket = await getTicket(ctx.tx, ctx.branchId, ctx.mode, p.ticket_id);
  // A newer snooze changed snoozed_until; "On my way" cleared it: either way this one is void.
  if (ticket === undefined || ticket.status !== 'ready' || ticket.snoozedUntil !== Number(p.until)) return { done: true };
  const { rung } = await applyRingTransition(ctx, ticket.id, 'snooze_end', { verb: 'ring at the end of the snooze' });
  const ring = await recordRing(ctx, rung, 'snooze_end');
  await completeJobByKey(ctx.tx, `snooze:${ticket.id}:${p.until}`, now);
  return { ring: { ringId: ring.ringId } };
}
