// Every /v1 write goes through runWrite: one transaction per action, and idempotency implemented
// once. With an Idempotency-Key the stored answer is written in the same transaction as the
// effect, so a crash can never leave an effect without its answer or an answer without its
// effect. Two-phase writes (ready: commit the transition, ring in-line, then answer) keep the key
// "pending" between the phases; concurrent repeats wait for the answer instead of acting again.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, TxCtx } from '../actions/ctx.ts';
import type { Tx } from '../store/db.ts';
import { AppError } from '../domain/errors.ts';
import {
  claimIdempotencyKey,
  getIdempotencyRecord,
  releaseIdempotencyLock,
  storeIdempotentResponse,
  type IdempotencyRecord,
} from '../store/idempotency.ts';
import { PROBLEM_CONTENT_TYPE, toProblem, type Problem } from './problems.ts';

export type TwoPhase<R> = {
  /**
   * Work done after the first commit (the in-line ring); returns how to finish in a second
   * transaction. After a crash another request calls it with what `keep` kept.
   */
  after: (ctx: Ctx, first: R) => Promise<(tx: Tx) => Promise<unknown>>;
  /** What of the first phase's result the key's row keeps for that (default: all of it). */
  keep?: (first: R) => R;
  /** The answer, when the first phase already holds it: the write is then that one transaction. */
  done?: (first: R) => unknown;
};

export type WriteSpec<R> = {
  status: number;
  run: (ctx: TxCtx) => Promise<R>;
  twoPhase?: TwoPhase<R>;
  /**
   * What a replay may show, when the first answer reveals a secret "shown once" (a new API key,
   * a one-time password): the stored copy leaves it out, so the secret is never at rest here.
   */
  forReplay?: (first: R) => unknown;
  /**
   * Only for a request without an Idempotency-Key (which has no answer to store with its
   * effect): the write done outside a transaction of `run`'s (the PostgreSQL statement create),
   * or null to take `run` after all.
   */
  withoutKey?: (ctx: Ctx) => Promise<R | null>;
};

type Stored = { status: number; body: string };

const inflight = new Map<string, Promise<unknown>>();

function fingerprint(req: FastifyRequest): string {
  const body = (req as { rawBody?: string }).rawBody ?? '';
  // The JSON parser treats a whitespace-only body as no body; so does the fingerprint.
  // No body and `{}` mean the same request (every field of our bodies is optional or absent).
  const canonical = JSON.stringify(sortKeys(body.trim() === '' ? {} : JSON.parse(body)));
  return createHash('sha256').update(`${req.method} ${req.url}\n${canonical}`).digest('base64url');
}

/** Recursive, and safe: every body has passed the input guard's depth bound (MAX_BODY_DEPTH). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

function send(reply: FastifyReply, stored: Stored, replayed: boolean): FastifyReply {
  if (replayed) reply.header('Idempotent-Replayed', 'true');
  // No stored problem carries Retry-After: an answer that says "come back later" is never stored
  // (isFinalAnswer).
  reply.code(stored.status).type(stored.status >= 400 ? PROBLEM_CONTENT_TYPE : 'application/json; charset=utf-8');
  return reply.send(stored.body);
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runWrite<R>(req: FastifyRequest, reply: FastifyReply, ctx: Ctx, spec: WriteSpec<R>): Promise<FastifyReply> {
  const { db } = ctx.services;
  const key = ctx.idempotencyKey;
  if (key === null) {
    const direct = spec.withoutKey === undefined ? null : await spec.withoutKey(ctx);
    if (direct !== null) return send(reply, { status: spec.status, body: JSON.stringify(direct) }, false);
    const first = await db.write((tx) => spec.run({ ...ctx, tx }));
    const answer = spec.twoPhase === undefined ? first : spec.twoPhase.done?.(first);
    if (answer !== undefined) return send(reply, { status: spec.status, body: JSON.stringify(answer) }, false);
    const finish = await spec.twoPhase!.after(ctx, first);
    const body = await db.write((tx) => finish(tx));
    return send(reply, { status: spec.status, body: JSON.stringify(body) }, false);
  }

  const scope = `${ctx.branchId}\u0000${ctx.mode}\u0000${key}`;
  const { waitMs } = ctx.services.config.idempotency;
  const deadline = Date.now() + waitMs;
  // In one process, repeats queue behind the first instead of racing it to the store.
  for (let prior = inflight.get(scope); prior !== undefined; prior = inflight.get(scope)) {
    const left = deadline - Date.now();
    if (left <= 0) throw inUse();
    await Promise.race([prior.catch(() => {}), delay(left)]);
  }
  const work = attempt(req, ctx, spec, key, deadline);
  inflight.set(scope, work);
  try {
    const { stored, replayed } = await work;
    if (replayed) ctx.services.metrics?.idempotencyReplays.inc({ route: req.routeOptions.url ?? 'unmatched' });
    return send(reply, stored, replayed);
  } finally {
    if (inflight.get(scope) === work) inflight.delete(scope);
  }
}

/**
 * Whether a refusal is the request's answer for good. One that tells the client to come back
 * later (a 429 such as the ring's 10 s cooldown, 409 in use, any 5xx) is not: the client is told
 * to retry with the same key after Retry-After, and that retry must perform the action, so the
 * refusal is not stored under the key.
 */
function isFinalAnswer(p: Problem): boolean {
  return p.status < 500 && p.status !== 429 && p.code !== 'idempotency-key-in-use';
}

function inUse(): AppError {
  return new AppError(
    'idempotency-key-in-use',
    'A request with this Idempotency-Key is still being processed; retry shortly to get its result.',
    { retry_after: 1 },
  );
}

type FirstOutcome<R> =
  | { kind: 'stored'; stored: Stored }
  | { kind: 'existing'; rec: IdempotencyRecord | undefined }
  | { kind: 'continue'; first: R };

async function attempt<R>(
  req: FastifyRequest,
  ctx: Ctx,
  spec: WriteSpec<R>,
  key: string,
  deadline: number,
): Promise<{ stored: Stored; replayed: boolean }> {
  const { db, clock, config } = ctx.services;
  const fp = fingerprint(req);
  const lockMs = config.ring.inlineDeadlineMs + 10_000;
  for (;;) {
    const now = clock.now();
    const outcome = await db.write<FirstOutcome<R>>(async (tx) => {
      if (!(await claimIdempotencyKey(tx, ctx.branchId, ctx.mode, key, fp, now, lockMs))) {
        return { kind: 'existing', rec: await getIdempotencyRecord(tx, ctx.branchId, ctx.mode, key, now) };
      }
      try {
        const first = await tx.savepoint(() => spec.run({ ...ctx, tx }));
        const answer = spec.twoPhase === undefined ? first : spec.twoPhase.done?.(first);
        if (answer === undefined) {
          // Keep what the second phase needs, so another attempt can finish it after a crash.
          const kept = spec.twoPhase!.keep === undefined ? first : spec.twoPhase!.keep(first);
          await tx.run('UPDATE idempotency_keys SET response_body = $4 WHERE branch_id = $1 AND mode = $2 AND key = $3', [
            ctx.branchId,
            ctx.mode,
            key,
            JSON.stringify(kept),
          ]);
          return { kind: 'continue', first };
        }
        const stored = { status: spec.status, body: JSON.stringify(answer) };
        const kept = spec.forReplay === undefined || spec.twoPhase !== undefined ? stored.body : JSON.stringify(spec.forReplay(first));
        await storeIdempotentResponse(tx, ctx.branchId, ctx.mode, key, stored.status, kept);
        return { kind: 'stored', stored };
      } catch (err) {
        // A client error is the request's answer and is stored like a success; anything else
        // rolls the whole transaction back, claim included, so a retry tries again.
        if (!(err instanceof AppError)) throw err;
        const { problem } = toProblem(req, err);
        if (!isFinalAnswer(problem)) throw err;
        const stored = { status: problem.status, body: JSON.stringify(problem) };
        await storeIdempotentResponse(tx, ctx.branchId, ctx.mode, key, stored.status, stored.body);
        return { kind: 'stored', stored };
      }
    });
    if (outcome.kind === 'stored') return { stored: outcome.stored, replayed: false };
    if (outcome.kind === 'continue') return { stored: await finishSecondPhaseOrRelease(ctx, spec, key, outcome.first), replayed: false };

    const rec = outcome.rec;
    if (rec === undefined) continue; // released between our claim and read: try to claim again
    if (rec.fingerprint !== fp) {
      throw new AppError('idempotency-key-reuse', 'This Idempotency-Key was already used with a different method, path or body.');
    }
    if (rec.state === 'done') return { stored: { status: rec.responseStatus!, body: rec.responseBody! }, replayed: true };
    if (rec.lockedUntil !== null && rec.lockedUntil < clock.now() && spec.twoPhase !== undefined && rec.responseBody !== null) {
      // The request that took this key died between its phases: finish its work, once.
      const took = await db.write((tx) =>
        tx.run(
          "UPDATE idempotency_keys SET locked_until = $4 WHERE branch_id = $1 AND mode = $2 AND key = $3 AND state = 'pending' AND locked_until = $5",
          [ctx.branchId, ctx.mode, key, clock.now() + lockMs, rec.lockedUntil],
        ),
      );
      if (took === 1)
        return { stored: await finishSecondPhaseOrRelease(ctx, spec, key, JSON.parse(rec.responseBody) as R), replayed: true };
    }
    if (Date.now() >= deadline) throw inUse();
    await delay(20);
  }
}

/**
 * A second phase that fails (5xx) is not stored, and nobody is working on the key any more: its
 * lock is released at once so that the client's retry finishes the committed first phase instead
 * of being told "in use" until the lock would have run out.
 */
async function finishSecondPhaseOrRelease<R>(ctx: Ctx, spec: WriteSpec<R>, key: string, first: R): Promise<Stored> {
  try {
    return await finishSecondPhase(ctx, spec, key, first);
  } catch (err) {
    const { db, clock } = ctx.services;
    await db.write((tx) => releaseIdempotencyLock(tx, ctx.branchId, ctx.mode, key, clock.now())).catch(() => {});
    throw err;
  }
}

async function finishSecondPhase<R>(ctx: Ctx, spec: WriteSpec<R>, key: string, first: R): Promise<Stored> {
  const finish = await spec.twoPhase!.after(ctx, first);
  return ctx.services.db.write(async (tx) => {
    const stored = { status: spec.status, body: JSON.stringify(await finish(tx)) };
    await storeIdempotentResponse(tx, ctx.branchId, ctx.mode, key, stored.status, stored.body);
    return stored;
  });
}
