// Ready and ring-again. Both start a ring inside the transaction: the ring row and its outbox job
// (key ring:<ticket>:<seq>) commit with the state change, so a crash after the commit still rings
// (the job does), and the seq makes every ring a distinct, dedupable unit. A ring with nobody to
// reach is recorded complete with the state change instead (RingLookAhead).
import type { Action, TxCtx } from './ctx.ts';
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { JobRecord } from '../store/outbox.ts';
import { insertRingWithJobs, ringJobKey, type RingingTicket } from '../store/rings.ts';
import type { RingRecord, Ticket } from '../store/tickets.ts';
import type { FirstAttempt, RingOutcome, RingReason, RingRequest, RingTarget, Ringer } from '../channels/ringer.ts';
import { applyRingTransition } from './transition.ts';
import { presentTicket, type TicketObject } from './present.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';
import { firstReminderJob } from './reminders.ts';
import { announceRung, asResult } from './perform-ring.ts';

export const MANUAL_RING_INTERVAL_MS = 10_000;

export type StartedRing = {
  ticketId: string;
  ringId: string;
  seq: number;
  reason: RingReason;
  /**
   * What the in-line attempt right after the commit is handed, so that it reads nothing back.
   * Never stored: a request that finishes another's first phase (write.ts) has only the rest,
   * and reads the ring and ticket as they are now.
   */
  inline?: { ring: RingRecord; ticket: Ticket; facts: FirstAttempt };
  /** The answer, when nobody could be reached and the ring was completed with its start (RingLookAhead). */
  answer?: RingAnswer;
};

/** How long a ready waits for the look-ahead before its transaction: a Redis round trip is far less. */
export const LOOK_AHEAD_WAIT_MS = 50;

/**
 * The ringer's look-ahead (who is connected), asked before the transaction that starts a ring.
 * When it says that no channel has anyone to try (no page open, no board to speak, no push
 * subscription, no SMS to send), the first attempt's outcome is known without contacting anyone,
 * and the ring is completed, ticket.rung included, in that same transaction: no in-line attempt,
 * no second transaction, no job. The caller waits for `settled` before the transaction (which
 * itself never waits on it); a look-ahead that failed or did not answer in time changes nothing:
 * the ring goes the usual way.
 */
export class RingLookAhead {
  private check: ((request: RingRequest) => RingOutcome | null) | null = null;
  readonly settled: Promise<void>;

  constructor(ringer: Ringer, target: RingTarget, maxWaitMs: number = LOOK_AHEAD_WAIT_MS) {
    const pending = ringer.lookAhead?.(target);
    if (pending === undefined) {
      this.settled = Promise.resolve();
      return;
    }
    this.settled = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxWaitMs);
      timer.unref();
      pending
        .then(
          (check) => {
            this.check = check;
          },
          () => {},
        )
        .finally(() => {
          clearTimeout(timer);
          resolve();
        });
    });
  }

  outcome(request: RingRequest): RingOutcome | null {
    return this.check === null ? null : this.check(request);
  }
}

/** Leaves out what must not outlive the process (the in-line hand-over). */
export const durableStartedRing = ({ inline: _, answer: __, ...durable }: StartedRing): StartedRing => durable;

/**
 * Records the ring that `rung` counted (applyRingTransition): the ring row, its outbox job (key
 * ring:<ticket>:<seq>, so a crash after the commit still rings) and any `jobs` of the caller, in
 * one statement on PostgreSQL; the live update after the commit. With a look-ahead that finds
 * nobody to try, the ring is recorded complete instead (see RingLookAhead).
 */
export async function recordRing(
  ctx: TxCtx,
  rung: RingingTicket,
  reason: RingReason,
  jobs: readonly JobRecord[] = [],
  look?: RingLookAhead,
  presented?: TicketObject,
): Promise<StartedRing> {
  const { ticket } = rung;
  const now = ctx.services.clock.now();
  const ring: RingRecord = {
    id: newId('ring', now),
    ticketId: ticket.id,
    branchId: ctx.branchId,
    mode: ctx.mode,
    seq: ticket.rings,
    reason,
    createdAt: now,
    completedAt: null,
    result: null,
  };
  const facts: FirstAttempt = { branch: rung.branch, plan: ctx.plan, pushSubscriptions: rung.pushSubscriptions };
  const started: StartedRing = { ticketId: ticket.id, ringId: ring.id, seq: ring.seq, reason };
  const quiet = look?.outcome({ ringId: ring.id, seq: ring.seq, reason, ticket, livemode: ctx.mode === 'live', first: facts }) ?? null;
  if (quiet !== null) {
    const result = asResult(quiet);
    await insertRingWithJobs(ctx.tx, { ...ring, completedAt: now, result }, jobs);
    publishTicket(ctx, ticket, 'ticket.ringing', { ring: { id: ring.id, seq: ring.seq, reason } });
    const shown = await announceRung(ctx, ring, result, ticket, presented);
    return {
      ...started,
      answer: { rang: result.rang, channel_used: result.channel_used, call_out_loud: result.call_out_loud, ticket: shown },
    };
  }
  // The in-line attempt has the deadline to finish; only then does the job look at this ring.
  const runAt = now + ctx.services.config.ring.inlineDeadlineMs + 5_000;
  const ringJob: JobRecord = {
    id: newId('job', now),
    kind: 'ring',
    key: ringJobKey(ticket.id, ring.seq),
    payload: { ring_id: ring.id, branch_id: ctx.branchId, mode: ctx.mode },
    runAt,
    createdAt: now,
  };
  await insertRingWithJobs(ctx.tx, ring, [ringJob, ...jobs]);
  publishTicket(ctx, ticket, 'ticket.ringing', { ring: { id: ring.id, seq: ring.seq, reason } });
  return { ...started, inline: { ring, ticket, facts } };
}

export type RingInput = { id: string; look?: RingLookAhead };

export const markReady: Action<RingInput, StartedRing> = async ({ ctx, input }) => {
  const now = ctx.services.clock.now();
  const { before, rung } = await applyRingTransition(ctx, input.id, 'ready', { readyAt: now, verb: 'mark ready' });
  const presented = presentTicket(rung.ticket, ctx.services.config.publicUrl);
  await recordEvent(ctx, 'ticket.ready', { object: presented, previous_status: before });
  const reminder = firstReminderJob(ctx, rung);
  // The same row: a ring completed with the ready shows the ticket as the ready event does.
  return recordRing(ctx, rung, 'ready', reminder === null ? [] : [reminder], input.look, presented);
};

export const ringAgain: Action<RingInput, StartedRing> = async ({ ctx, input }) => {
  const now = ctx.services.clock.now();
  // The 10 s rule is part of the UPDATE's condition: of two concurrent rings only one passes.
  const { rung } = await applyRingTransition(ctx, input.id, 'ring', {
    notRungAfter: now - MANUAL_RING_INTERVAL_MS,
    tooSoon: (current) => {
      const wait = Math.ceil(((current.lastRingAt ?? now) + MANUAL_RING_INTERVAL_MS - now) / 1000);
      return new AppError(
        'rate-limited',
        `This ticket was rung less than ${MANUAL_RING_INTERVAL_MS / 1000} seconds ago; ring again in ${wait} s.`,
        { retry_after: wait, violated_policies: ['ticket-ring'] },
      );
    },
  });
  return recordRing(ctx, rung, 'manual', [], input.look);
};

export type RingAnswer = { rang: boolean; channel_used: string; call_out_loud: boolean; ticket: TicketObject };
