// The part of a ring that happens outside the transaction: reaching the customer. Used in-line by
// ready/ring (bounded by the ring deadline) and by the outbox job that finishes what the deadline
// cut off or what a crash interrupted. Completing a ring is conditional on it not being complete,
// so the ticket.rung event and the answer are recorded exactly once.
import type { Ctx, TxCtx } from './ctx.ts';
import type { Tx } from '../store/db.ts';
import { completeJobByKey } from '../store/outbox.ts';
import { completeRing, getRing, getTicket, type RingRecord } from '../store/tickets.ts';
import type { RingOutcome, RingReason } from '../channels/ringer.ts';
import { presentTicket } from './present.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';
import type { RingAnswer } from './ring-ticket.ts';

export type RingResult = { rang: boolean; channel_used: string; call_out_loud: boolean; channels: RingOutcome['attempts'] };

const asResult = (o: RingOutcome): RingResult => ({ rang: o.rang, channel_used: o.channel_used, call_out_loud: o.call_out_loud, channels: o.attempts });

/** Tries every channel for the ring and returns how to record the outcome in a transaction. */
/** `final`: record what is known even if a channel is still undecided (the job's last try). */
export async function attemptRing(ctx: Ctx, ringId: string, deadlineMs: number, opts: { final?: boolean } = {}): Promise<(tx: Tx) => Promise<RingAnswer>> {
  const { db, ringer } = ctx.services;
  const ring = (await getRing(db, ringId))!;
  let outcome: RingOutcome | null = null;
  if (ring.completedAt === null) {
    const ticket = (await getTicket(db, ring.branchId, ring.mode, ring.ticketId))!;
    outcome = await ringer.ring({ ringId, seq: ring.seq, reason: ring.reason as RingReason, ticket, livemode: ring.mode === 'live' }, deadlineMs);
    if (opts.final === true) outcome = { ...outcome, complete: true };
  }
  return (tx) => recordRingOutcome({ ...ctx, tx }, ring, outcome);
}

async function recordRingOutcome(ctx: TxCtx, ring: RingRecord, outcome: RingOutcome | null): Promise<RingAnswer> {
  const now = ctx.services.clock.now();
  let result = ring.result as RingResult | null;
  if (outcome !== null && outcome.complete && (await completeRing(ctx.tx, ring.id, asResult(outcome), now))) {
    result = asResult(outcome);
    ctx.services.metrics?.rings.inc({ channel_used: result.channel_used, reason: ring.reason });
    await completeJobByKey(ctx.tx, `ring:${ring.ticketId}:${ring.seq}`, now);
    const ticket = (await getTicket(ctx.tx, ring.branchId, ring.mode, ring.ticketId))!;
    await recordEvent(ctx, 'ticket.rung', {
      object: presentTicket(ticket, ctx.services.config.publicUrl),
      ring: { id: ring.id, seq: ring.seq, reason: ring.reason, ...result },
    });
    publishTicket(ctx, ticket, 'ticket.rung', { ring: { id: ring.id, seq: ring.seq, reason: ring.reason, ...result } });
  } else if (outcome !== null && !outcome.complete) {
    result = asResult(outcome); // what was reached before the deadline; the job completes the ring
  } else if (result === null) {
    const stored = await getRing(ctx.tx, ring.id);
    result = (stored?.result as RingResult | null) ?? { rang: false, channel_used: 'none', call_out_loud: false, channels: [] };
  }
  const ticket = (await getTicket(ctx.tx, ring.branchId, ring.mode, ring.ticketId))!;
  return { rang: result.rang, channel_used: result.channel_used, call_out_loud: result.call_out_loud, ticket: presentTicket(ticket, ctx.services.config.publicUrl) };
}
