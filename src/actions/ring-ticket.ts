// Ready and ring-again. Both start a ring inside the transaction: the ring row and its outbox job
// (key ring:<ticket>:<seq>) commit with the state change, so a crash after the commit still rings
// (the job does), and the seq makes every ring a distinct, dedupable unit.
import type { Action, TxCtx } from './ctx.ts';
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { one } from '../store/db.ts';
import { enqueueJob } from '../store/outbox.ts';
import { getTicketForUpdate, insertRing, toTicket, TICKET_COLUMNS, type RingRecord, type Ticket } from '../store/tickets.ts';
import type { RingReason } from '../channels/ringer.ts';
import { applyTransition } from './transition.ts';
import { presentTicket } from './present.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';
import { scheduleFirstReminder } from './reminders.ts';

export const MANUAL_RING_INTERVAL_MS = 10_000;

export type StartedRing = { ticketId: string; ringId: string; seq: number; reason: RingReason };

export async function startRing(ctx: TxCtx, ticketId: string, reason: RingReason): Promise<{ ticket: Ticket; ring: RingRecord }> {
  const now = ctx.services.clock.now();
  const row = await one(
    ctx.tx,
    `UPDATE tickets SET rings = rings + 1, last_ring_at = $4, updated_at = $4 WHERE id = $1 AND branch_id = $2 AND mode = $3 RETURNING ${TICKET_COLUMNS}`,
    [ticketId, ctx.branchId, ctx.mode, now],
  );
  const ticket = toTicket(row!);
  const ring: RingRecord = {
    id: newId('ring', now), ticketId, branchId: ctx.branchId, mode: ctx.mode, seq: ticket.rings, reason,
    createdAt: now, completedAt: null, result: null,
  };
  await insertRing(ctx.tx, ring);
  // The in-line attempt has the deadline to finish; only then does the job look at this ring.
  const runAt = now + ctx.services.config.ring.inlineDeadlineMs + 5_000;
  await enqueueJob(ctx.tx, { id: newId('job', now), kind: 'ring', key: `ring:${ticketId}:${ring.seq}`, payload: { ring_id: ring.id, branch_id: ctx.branchId, mode: ctx.mode }, runAt, createdAt: now });
  publishTicket(ctx, ticket, 'ticket.ringing', { ring: { id: ring.id, seq: ring.seq, reason } });
  return { ticket, ring };
}

export const markReady: Action<{ id: string }, StartedRing> = async ({ ctx, input }) => {
  const now = ctx.services.clock.now();
  const { before, ticket } = await applyTransition(ctx, input.id, 'ready', { readyAt: now }, 'mark ready');
  await recordEvent(ctx, 'ticket.ready', { object: presentTicket(ticket, ctx.services.config.publicUrl), previous_status: before });
  const { ring } = await startRing(ctx, ticket.id, 'ready');
  await scheduleFirstReminder(ctx, ticket);
  return { ticketId: ticket.id, ringId: ring.id, seq: ring.seq, reason: 'ready' };
};

export const ringAgain: Action<{ id: string }, StartedRing> = async ({ ctx, input }) => {
  // Locked: two concurrent rings must not both pass the 10 s check (seen on PostgreSQL).
  const current = await getTicketForUpdate(ctx.tx, ctx.branchId, ctx.mode, input.id);
  const now = ctx.services.clock.now();
  if (current !== undefined && current.status === 'ready' && current.lastRingAt !== null && now - current.lastRingAt < MANUAL_RING_INTERVAL_MS) {
    const wait = Math.ceil((current.lastRingAt + MANUAL_RING_INTERVAL_MS - now) / 1000);
    throw new AppError('rate-limited', `This ticket was rung less than ${MANUAL_RING_INTERVAL_MS / 1000} seconds ago; ring again in ${wait} s.`, { retry_after: wait, violated_policies: ['ticket-ring'] });
  }
  await applyTransition(ctx, input.id, 'ring', {}, 'ring');
  const { ring } = await startRing(ctx, input.id, 'manual');
  return { ticketId: input.id, ringId: ring.id, seq: ring.seq, reason: 'manual' };
};

export type RingAnswer = { rang: boolean; channel_used: string; call_out_loud: boolean; ticket: ReturnType<typeof presentTicket> };
