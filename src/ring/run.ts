// Running a ring: the one function that reaches the customer for a ring that has been started,
// whoever asks — a ready's or a manual ring's request right after its commit (bounded by the ring
// deadline), the ring's job finishing what that deadline cut short or a crash interrupted, a
// reminder's or a snooze's job. It contacts the channels outside any transaction and returns the
// transaction that records what they did. Completing a ring is conditional on it not being
// complete, so the ticket.rung event is recorded once however many attempts there are.
import type { Ctx, TxCtx } from '../core/ctx.ts';
import { completeRing, getRing, type RingRecord } from '../store/rings.ts';
import { getTicket } from '../store/tickets.ts';
import type { Ticket } from '../core/ticket.ts';
import { deleteRingSends, listRingSends } from '../store/ring-sends.ts';
import { deliveredChannels } from '../store/ring-deliveries.ts';
import type { FirstAttempt, RingOutcome, RingReason } from '../core/ring.ts';
import { staleClaimMs } from '../channels/send-once.ts';
import { presentTicket } from '../contract/present.ts';
import type { TicketObject } from '../contract/schemas.ts';
import { recordEvent } from '../actions/record-event.ts';
import { publishTicket } from '../actions/publish.ts';
import { countRing } from '../metrics.ts';
import { outcomeFromRecords } from './recorded-outcome.ts';
import { ringJobKey } from '../domain/ring-escalation.ts';
import { countTicketChange, type InsightChange } from '../store/insights-rollups.ts';

/** What a ring's request answers (RingResult in the API). */
export type RingAnswer = { rang: boolean; channel_used: string; call_out_loud: boolean; ticket: TicketObject };

/** What a completed ring stores as its result, and ticket.rung reports. */
export type RingResult = { rang: boolean; channel_used: string; call_out_loud: boolean; channels: RingOutcome['attempts'] };

export const asResult = (o: RingOutcome): RingResult => ({
  rang: o.rang,
  channel_used: o.channel_used,
  call_out_loud: o.call_out_loud,
  channels: o.attempts,
});

const NOBODY: RingResult = { rang: false, channel_used: 'none', call_out_loud: false, channels: [] };

/**
 * A ring just started in this process, handed over by its start: the ring, the ticket and what
 * the start read (FirstAttempt), so that its first attempt reads nothing back. Never stored.
 */
export type OpenRing = { ring: RingRecord; ticket: Ticket; facts: FirstAttempt };

/** A ring to run: one handed over by its start, or the id of one to look at again. */
export type RingToRun = OpenRing | { id: string };

/** `open`: the ring is still not complete after this attempt (its job looks again). */
export type RingRun = { answer: RingAnswer; open: boolean };

/**
 * Tries the ring's channels under `deadlineMs` and returns how to record the outcome in a
 * transaction. `final`: record what is known even if a channel is still undecided (the job's last
 * try), except a push or SMS send whose outcome is still to come: that one always resolves (a live
 * send within its timeout, a dead sender's claim once it is stale, send-once.ts), and leaving it
 * out would record "not reached" for a ring that may have reached the customer.
 */
export async function runRing(
  ctx: Ctx,
  target: RingToRun,
  deadlineMs: number,
  opts: { final?: boolean } = {},
): Promise<(ctx: TxCtx) => Promise<RingRun>> {
  const { db, ringer, clock, config } = ctx.services;
  const handed = 'ring' in target ? target : undefined;
  const ring = 'ring' in target ? target.ring : await getRing(db, target.id);
  if (ring === undefined) throw new Error('no such ring');
  let outcome: RingOutcome | null = null;
  if (ring.completedAt === null) {
    const ticket = handed?.ticket ?? (await getTicket(db, ring.branchId, ring.mode, ring.ticketId));
    if (ticket !== undefined && ticket.status === 'ready') {
      outcome = await ringer.ring(
        {
          ringId: ring.id,
          seq: ring.seq,
          reason: ring.reason as RingReason,
          ticket,
          livemode: ring.mode === 'live',
          channels: ring.channels,
          first: handed?.facts,
        },
        deadlineMs,
      );
    } else {
      // Closed while the ring was open: nothing more is sent, and what was is what it reached.
      const [sends, confirmed] = await Promise.all([listRingSends(db, ring.id), deliveredChannels(db, ring.id)]);
      outcome = outcomeFromRecords(sends, confirmed, clock.now(), staleClaimMs(config.ring.sendTimeoutMs));
    }
    if (opts.final === true && outcome.sending !== true) outcome = { ...outcome, complete: true };
  }
  return (txCtx) => recordOutcome(txCtx, ring, outcome);
}

/**
 * Completes the ring once (the ticket.rung event with it) when the outcome is complete, and
 * answers with the ticket as it is now: the completion and that read are one statement on
 * PostgreSQL.
 */
async function recordOutcome(ctx: TxCtx, ring: RingRecord, outcome: RingOutcome | null): Promise<RingRun> {
  const { publicUrl } = ctx.services.config;
  let result = ring.result as RingResult | null;
  let open = ring.completedAt === null;
  let ticket: Ticket | undefined;
  let presented: TicketObject | undefined;
  if (outcome?.complete) {
    const done = await completeRing(ctx.tx, ring, asResult(outcome), ctx.services.clock.now(), ringJobKey(ring.ticketId, ring.seq));
    ticket = done.ticket;
    open = false; // by this attempt, or by another one meanwhile
    if (done.completed) {
      result = asResult(outcome);
      presented = await announceRung(ctx, ring, result, ticket!);
      // A ticket closed mid-ring kept this ring's send records until now (deleteTicketSends).
      if (ticket !== undefined && ticket.closedAt !== null) await deleteRingSends(ctx.tx, ring.id);
    }
  } else if (outcome !== null) {
    result = asResult(outcome); // what was reached before the deadline; the job completes the ring
  }
  // Another attempt completed it: answer with what that one recorded.
  result ??= ((await getRing(ctx.tx, ring.id))?.result as RingResult | null) ?? NOBODY;
  ticket ??= await getTicket(ctx.tx, ring.branchId, ring.mode, ring.ticketId);
  presented ??= presentTicket(ticket!, publicUrl);
  return { answer: { rang: result.rang, channel_used: result.channel_used, call_out_loud: result.call_out_loud, ticket: presented }, open };
}

/** A ring's completion as the world sees it: the ticket.rung event (and its webhooks), the live update, the metric. */
export async function announceRung(
  ctx: TxCtx,
  ring: RingRecord,
  result: RingResult,
  ticket: Ticket,
  presented: TicketObject = presentTicket(ticket, ctx.services.config.publicUrl),
  /** The caller's own change of the ticket (a ready), counted in the same rollup upsert. */
  alsoCount: InsightChange | null = null,
): Promise<TicketObject> {
  // Counted once the ring's completion has committed: a transaction rolled back (its request's
  // key found taken, say) rang nobody. The hook is the metric's own function: whoever runs the
  // commit's hooks (the write path, a job's transaction) calls metrics.ts, not back into ring/.
  ctx.tx.afterCommit(countRing.bind(null, ctx.services.metrics, ring.reason, result));
  const data = { ring: { id: ring.id, seq: ring.seq, reason: ring.reason, ...result } };
  await recordEvent(ctx, 'ticket.rung', { object: presented, ...data });
  const rung: InsightChange = { kind: 'rung', channel: result.channel_used, calledOut: result.call_out_loud };
  await countTicketChange(ctx.tx, ticket, ctx.services.clock.now(), alsoCount === null ? rung : [alsoCount, rung]);
  publishTicket(ctx, ticket, 'ticket.rung', data);
  return presented;
}
