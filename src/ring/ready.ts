// Ready and ring again: the two rings a request asks for. Each starts its ring in the request's
// transaction and answers with a Continuation that runs the ring right after the commit, under the
// ring deadline, so that the answer (`rang`, `channel_used`, `call_out_loud`) is a true account
// of what happened; what the deadline cuts off is finished by the ring's job. When nobody can be
// reached (the look-ahead), the transaction holds the answer and is the whole write.
import type { Action, Ctx } from '../core/ctx.ts';
import { Continuation } from '../actions/continuation.ts';
import { sharesCommit } from '../core/shared-commit.ts';
import { presentTicket } from '../contract/present.ts';
import { recordEvent } from '../actions/record-event.ts';
import { AppError } from '../domain/errors.ts';
import { ringChannels } from '../domain/ring-escalation.ts';
import type { RingLookAhead } from './look-ahead.ts';
import { runRing, type RingAnswer, type RingToRun } from './run.ts';
import { firstReminderJob } from '../actions/ring-schedule.ts';
import { startRing, type StartedRing } from './start.ts';
import { applyRingTransition } from './transition.ts';

export const MANUAL_RING_INTERVAL_MS = 10_000;

/** `look`: the look-ahead, settled before the transaction (look-ahead.ts). */
export type RingInput = { id: string; look?: RingLookAhead };

export type RingWrite = RingAnswer | Continuation<RingAnswer>;

export const markReady: Action<RingInput, RingWrite> = sharesCommit(async ({ ctx, input }) => {
  const now = ctx.services.clock.now();
  const { before, rung } = await applyRingTransition(ctx, input.id, 'ready', { readyAt: now, verb: 'mark ready' });
  const presented = presentTicket(rung.ticket, ctx.services.config.publicUrl);
  await recordEvent(ctx, 'ticket.ready', { object: presented, previous_status: before });
  const reminder = firstReminderJob(ctx, rung);
  // The same row: a ring completed with the ready shows the ticket as the ready event does.
  const started = await startRing(ctx, rung, {
    reason: 'ready',
    channels: ringChannels(rung.branch.settings, 'ready'),
    jobs: reminder === null ? [] : [reminder],
    look: input.look,
    presented,
    // Counted by the ring's start, after its other writes (on PostgreSQL the rollup row stays
    // locked from the upsert to COMMIT, decision 0025), with the ring's completion when that is now.
    count: { kind: 'ready', preparationMs: now - rung.ticket.createdAt },
  });
  return answerOrRunInline(ctx, started);
});

export const ringAgain: Action<RingInput, RingWrite> = sharesCommit(async ({ ctx, input }) => {
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
  const started = await startRing(ctx, rung, {
    reason: 'manual',
    channels: ringChannels(rung.branch.settings, 'manual'),
    look: input.look,
  });
  return answerOrRunInline(ctx, started);
});

/** What a request keeps to finish a ring whose first phase committed in a process that died. */
type SavedRing = { ringId: string };

function answerOrRunInline(ctx: Ctx, started: StartedRing): RingWrite {
  if ('answer' in started) return started.answer;
  return runInline(started.open, { ringId: started.open.ring.id }, ctx.services.config.ring.inlineDeadlineMs);
}

/** The in-line attempt, bounded by the ring deadline; its transaction records it and answers. */
function runInline(target: RingToRun, saved: SavedRing, deadlineMs: number): Continuation<RingAnswer> {
  return new Continuation<RingAnswer>(
    saved,
    async (ctx) => {
      const record = await runRing(ctx, target, deadlineMs);
      return async (txCtx) => (await record(txCtx)).answer;
    },
    deadlineMs,
  );
}

/**
 * Another request with the same Idempotency-Key finishes a ring whose request died between its
 * phases: it reads the ring and ticket as they are now (nothing of the dead process's hand-over).
 */
export function resumeRing(ctx: Ctx, saved: unknown): Continuation<RingAnswer> {
  const { ringId } = saved as SavedRing;
  return runInline({ id: ringId }, { ringId }, ctx.services.config.ring.inlineDeadlineMs);
}
