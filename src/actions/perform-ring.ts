// The part of a ring that happens outside the transaction: reaching the customer. Used in-line by
// ready/ring (bounded by the ring deadline) and by the outbox job that finishes what the deadline
// cut off or what a crash interrupted. Completing a ring is conditional on it not being complete,
// so the ticket.rung event and the answer are recorded exactly once.
import type { Ctx, TxCtx } from './ctx.ts';
import type { Tx } from '../store/db.ts';
import { completeRingWithJob } from '../store/rings.ts';
import { getRing, getTicket, type RingRecord, type Ticket } from '../store/tickets.ts';
import type { FirstAttempt, RingOutcome, RingReason } from '../channels/ringer.ts';
import { presentTicket, type TicketObject } from './present.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';
import type { RingAnswer, StartedRing } from './ring-ticket.ts';
import { countRing } from '../metrics.ts';

export type RingResult = { rang: boolean; channel_used: string; call_out_loud: boolean; channels: RingOutcome['attempts'] };

export const asResult = (o: RingOutcome): RingResult => ({
  rang: o.rang,
  channel_used: o.channel_used,
  call_out_loud: o.call_out_loud,
  channels: o.attempts,
});

const NOBODY: RingResult = { rang: false, channel_used: 'none', call_out_loud: false, channels: [] };

/**
 * Tries every channel for the ring and returns how to record the outcome in a transaction.
 * `ring`: a ring just started in this process (its in-line hand-over: nothing is read back), or
 * the id of one to look at again (the job, a request finishing another's first phase).
 * `final`: record what is known even if a channel is still undecided (the job's last try), except
 * a push or SMS send whose outcome is still to come: that one always resolves (a live send within
 * its timeout, a dead sender's claim once it is stale, send-once.ts), and leaving it out would
 * record "not reached" for a ring that may have reached the customer.
 */
export async function attemptRing(
  ctx: Ctx,
  ring: string | StartedRing,
  deadlineMs: number,
  opts: { final?: boolean } = {},
): Promise<(tx: Tx) => Promise<RingAnswer>> {
  const { db, ringer } = ctx.services;
  const inline = typeof ring === 'string' ? undefined : ring.inline;
  const record = inline?.ring ?? (await getRing(db, typeof ring === 'string' ? ring : ring.ringId))!;
  let outcome: RingOutcome | null = null;
  if (record.completedAt === null) {
    const ticket = inline?.ticket ?? (await getTicket(db, record.branchId, record.mode, record.ticketId))!;
    const first: FirstAttempt | undefined = inline?.facts;
    outcome = await ringer.ring(
      { ringId: record.id, seq: record.seq, reason: record.reason as RingReason, ticket, livemode: record.mode === 'live', first },
      deadlineMs,
    );
    if (opts.final === true && outcome.sending !== true) outcome = { ...outcome, complete: true };
  }
  return (tx) => recordRingOutcome({ ...ctx, tx }, record, outcome);
}

/**
 * Completes the ring once (the ticket.rung event with it) when the outcome is complete, and
 * answers with the ticket as it is now: the completion and that read are one statement on
 * PostgreSQL.
 */
async function recordRingOutcome(ctx: TxCtx, ring: RingRecord, outcome: RingOutcome | null): Promise<RingAnswer> {
  const { publicUrl } = ctx.services.config;
  let result = ring.result as RingResult | null;
  let ticket: Ticket | undefined;
  let presented: TicketObject | undefined;
  if (outcome !== null && outcome.complete) {
    const done = await completeRingWithJob(ctx.tx, ring, asResult(outcome), ctx.services.clock.now());
    ticket = done.ticket;
    if (done.completed) {
      result = asResult(outcome);
      presented = await announceRung(ctx, ring, result, ticket!);
    }
  } else if (outcome !== null) {
    result = asResult(outcome); // what was reached before the deadline; the job completes the ring
  }
  // Another attempt completed it: answer with what that one recorded.
  result ??= ((await getRing(ctx.tx, ring.id))?.result as RingResult | null) ?? NOBODY;
  ticket ??= await getTicket(ctx.tx, ring.branchId, ring.mode, ring.ticketId);
  presented ??= presentTicket(ticket!, publicUrl);
  return { rang: result.rang, channel_used: result.channel_used, call_out_loud: result.call_out_loud, ticket: presented };
}

/** A ring's completion as the world sees it: the ticket.rung event (and its webhooks), the live update, the metric. */
export async function announceRung(
  ctx: TxCtx,
  ring: RingRecord,
  result: RingResult,
  ticket: Ticket,
  presented: TicketObject = presentTicket(ticket, ctx.services.config.publicUrl),
): Promise<TicketObject> {
  countRing(ctx.services.metrics, ring.reason, result);
  const data = { ring: { id: ring.id, seq: ring.seq, reason: ring.reason, ...result } };
  await recordEvent(ctx, 'ticket.rung', { object: presented, ...data });
  publishTicket(ctx, ticket, 'ticket.rung', data);
  return presented;
}
