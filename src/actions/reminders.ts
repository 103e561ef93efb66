// Automatic rings (PRODUCT.md §2): a ready ticket not acknowledged after the branch's reminder
// delay is rung again, up to its reminder count; a snooze rings again when it ends. Both are
// durable jobs in the outbox with unique keys (remind:<ticket>:<n>, snooze:<ticket>:<until>), so a
// restart neither loses them nor runs them twice: the transaction that starts a ring also marks
// its job done and schedules the next reminder.
import type { TxCtx } from './ctx.ts';
import type { Ticket } from '../store/tickets.ts';
import { getTicket } from '../store/tickets.ts';
import { getBranch } from '../store/tenancy.ts';
import { completeJobByKey, enqueueJob } from '../store/outbox.ts';
import { newId } from '../domain/ids.ts';
import { applyTransition } from './transition.ts';
import { startRing } from './ring-ticket.ts';

export type ReminderPayload = { ticket_id: string; branch_id: string; mode: string; n: number };
export type SnoozeEndPayload = { ticket_id: string; branch_id: string; mode: string; until: number };

/** What a reminder or snooze job decided: ring now, look again later, or nothing to do. */
export type AutoRingDecision = { ring: { ringId: string } } | { retryAt: number } | { done: true };

export const reminderKey = (ticketId: string, n: number): string => `remind:${ticketId}:${n}`;

async function enqueueReminder(ctx: TxCtx, ticketId: string, n: number, runAt: number): Promise<void> {
  const now = ctx.services.clock.now();
  const payload: ReminderPayload = { ticket_id: ticketId, branch_id: ctx.branchId, mode: ctx.mode, n };
  await enqueueJob(ctx.tx, { id: newId('job', now), kind: 'reminder', key: reminderKey(ticketId, n), payload, runAt, createdAt: now });
}

/** Called by markReady in its transaction: the first reminder is due a delay after ready. */
export async function scheduleFirstReminder(ctx: TxCtx, ticket: Ticket): Promise<void> {
  const branch = await getBranch(ctx.tx, ctx.branchId);
  if (branch === undefined || branch.settings.reminder_count < 1) return;
  await enqueueReminder(ctx, ticket.id, 1, (ticket.readyAt ?? ctx.services.clock.now()) + branch.settings.reminder_delay_seconds * 1000);
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
  await applyTransition(ctx, ticket.id, 'remind', {}, 'remind');
  const { ring } = await startRing(ctx, ticket.id, 'reminder');
  if (p.n < count) await enqueueReminder(ctx, ticket.id, p.n + 1, now + delaySeconds * 1000);
  await completeJobByKey(ctx.tx, reminderKey(ticket.id, p.n), now);
  return { ring: { ringId: ring.id } };
}

/** The end of a snooze rings once, unless the ticket closed or the snooze was replaced or answered. */
export async function startSnoozeEndRing(ctx: TxCtx, p: SnoozeEndPayload): Promise<AutoRingDecision> {
  const now = ctx.services.clock.now();
  const ticket = await getTicket(ctx.tx, ctx.branchId, ctx.mode, p.ticket_id);
  // A newer snooze changed snoozed_until; "On my way" cleared it: either way this one is void.
  if (ticket === undefined || ticket.status !== 'ready' || ticket.snoozedUntil !== Number(p.until)) return { done: true };
  await applyTransition(ctx, ticket.id, 'snooze_end', {}, 'ring at the end of the snooze');
  const { ring } = await startRing(ctx, ticket.id, 'snooze_end');
  await completeJobByKey(ctx.tx, `snooze:${ticket.id}:${p.until}`, now);
  return { ring: { ringId: ring.id } };
}
