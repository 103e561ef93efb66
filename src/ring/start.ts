// Starting a ring, inside the transaction of the change that causes it (ready, ring again, a
// reminder, a snooze's end): the ring row and its outbox job (ring:<ticket>:<seq>) commit with the
// state change, so a crash after the commit still rings (the job does), and the seq makes every
// ring a distinct, dedupable unit. A ring with nobody to reach is recorded complete with the
// state change instead (RingLookAhead).
import type { TxCtx } from '../core/ctx.ts';
import { newId } from '../domain/ids.ts';
import type { ChannelChoice } from '../core/ring.ts';
import type { JobRecord } from '../store/outbox.ts';
import { insertRingWithJobs, type RingingTicket, type RingRecord } from '../store/rings.ts';
import type { FirstAttempt, RingReason, RingRequest } from '../core/ring.ts';
import type { TicketObject } from '../contract/schemas.ts';
import { publishTicket } from '../actions/publish.ts';
import type { RingLookAhead } from './look-ahead.ts';
import { announceRung, asResult, type OpenRing, type RingAnswer } from './run.ts';
import { ringJob } from '../actions/ring-schedule.ts';
import { countTicketChange, type InsightChange } from '../store/insights-rollups.ts';

/** A started ring: open (to run next, see run.ts), or already answered (nobody to reach). */
export type StartedRing = { open: OpenRing } | { answer: RingAnswer };

export type RingStart = {
  reason: RingReason;
  /** Decided by the policy (escalation.ts), stored with the ring. */
  channels: ChannelChoice;
  /** The caller's jobs, inserted with the ring (a ready's first reminder, a reminder's next one). */
  jobs?: readonly JobRecord[];
  look?: RingLookAhead;
  /** The ticket as the caller's event showed it, reused by a ring completed at once. */
  presented?: TicketObject;
  /**
   * The caller's own change for the owner's figures (a ready), counted here: with the ring's
   * completion in one upsert of the hour's row when the ring completes at once (decision 0054).
   */
  count?: InsightChange;
};

/**
 * Records the ring that `rung` counted (applyRingTransition): the ring row, its outbox job and the
 * caller's jobs, in one statement on PostgreSQL, and the live update after the commit. With a
 * look-ahead that finds nobody to try, the ring is recorded complete instead.
 */
export async function startRing(ctx: TxCtx, rung: RingingTicket, start: RingStart): Promise<StartedRing> {
  const { ticket } = rung;
  const { reason, channels, jobs = [] } = start;
  const now = ctx.services.clock.now();
  const ring: RingRecord = {
    id: newId('ring', now),
    ticketId: ticket.id,
    branchId: ctx.branchId,
    mode: ctx.mode,
    seq: ticket.rings,
    reason,
    channels,
    createdAt: now,
    completedAt: null,
    result: null,
  };
  const facts: FirstAttempt = { branch: rung.branch, plan: ctx.plan, pushSubscriptions: rung.pushSubscriptions };
  const request: RingRequest = { ringId: ring.id, seq: ring.seq, reason, ticket, livemode: ctx.mode === 'live', channels, first: facts };
  const quiet = start.look?.outcome(request) ?? null;
  const ringing = { ring: { id: ring.id, seq: ring.seq, reason } };
  if (quiet !== null) {
    const result = asResult(quiet);
    await insertRingWithJobs(ctx.tx, { ...ring, completedAt: now, result }, jobs);
    publishTicket(ctx, ticket, 'ticket.ringing', ringing);
    const shown = await announceRung(ctx, ring, result, ticket, start.presented, start.count ?? null);
    return { answer: { rang: result.rang, channel_used: result.channel_used, call_out_loud: result.call_out_loud, ticket: shown } };
  }
  await insertRingWithJobs(ctx.tx, ring, [ringJob(ctx, ring), ...jobs]);
  publishTicket(ctx, ticket, 'ticket.ringing', ringing);
  if (start.count !== undefined) await countTicketChange(ctx.tx, ticket, now, start.count);
  return { open: { ring, ticket, facts } };
}
