// Every /v1 write goes through runWrite: one transaction per action, and idempotency implemented
// once. With an Idempotency-Key the stored answer is written in the same transaction as the
// effect, so a crash can never leave an effect without its answer or an answer without its
// effect. An action that answers with a Continuation (ready: commit the transition, ring in-line,
// then answer) keeps the key "pending" between its two transactions; concurrent repeats wait for
// the answer instead of acting again, and a repeat after a crash between them finishes the second.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, TxCtx } from '../core/ctx.ts';
import { Continuation, finish } from '../actions/continuation.ts';
import { AppError } from '../domain/errors.ts';
import {
  claimIdempotencyKey,
  getIdempotencyRecord,
  keepPendingWork,
  recordAnsweredKey,
  releaseIdempotencyLock,
  storeIdempotentResponse,
  takeOverPendingKey,
  type IdempotencyRecord,
  type KeyToRecord,
  type SelfRecorded,
} from '../store/idempotency.ts';
import { PROBLEM_CONTENT_TYPE, toProblem, type Problem } from './problems.ts';

export type WriteSpec<R> = {
  status: number;
  /** The write's transaction: its answer, or a Continuation that finishes it after the commit. */
  run: (ctx: TxCtx) => Promise<R | Continuation<R>>;
  /**
   * For a write that may continue: its continuation rebuilt from what it saved, for a request
   * with the same Idempotency-Key that finds the first transaction committed by a request that
   * died before the second.
   */
  resume?: (ctx: Ctx, saved: unknown) => Continuation<R>;
  /**
   * What a replay may show, when the first answer reveals a secret "shown once" (a new API key,
   * a one-time password): the stored copy leaves it out, so the secret is never at rest here.
   */
  forReplay?: (first: R) => unknown;
};

/**
 * A write that commits itself and records its Idempotency-Key, with its answer, in the same
 * commit (a create: src/store/ticket-create.ts). It claims nothing before its work, and writes
 * the key once; a repeat finds the record and is answered from it as runWrite's repeats are.
 */
export type SelfRecordingWrite = {
  status: number;
  commit: (ctx: Ctx, key: KeyToRecord | null) => Promise<SelfRecorded>;
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
    const first = await db.write((tx) => spec.run({ ...ctx, tx }));
    const answer = first instanceof Continuation ? await finish(ctx, first) : first;
    return send(reply, { status: spec.status, body: JSON.stringify(answer) }, false);
  }

  return oncePerKey(req, reply, ctx, key, (deadline) => attempt(req, ctx, spec, key, deadline));
}

export async function runSelfRecordingWrite(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: Ctx,
  spec: SelfRecordingWrite,
): Promise<FastifyReply> {
  const key = ctx.idempotencyKey;
  if (key === null) {
    const done = await spec.commit(ctx, null);
    if (done.kind !== 'done') throw new Error('a write without a key cannot find its key taken');
    return send(reply, { status: spec.status, body: done.answer }, false);
  }
  return oncePerKey(req, reply, ctx, key, (deadline, waited) => attemptSelfRecording(req, ctx, spec, key, deadline, waited));
}

async function oncePerKey(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: Ctx,
  key: string,
  run: (deadline: number, waited: boolean) => Promise<{ stored: Stored; replayed: boolean }>,
): Promise<FastifyReply> {
  const scope = `${ctx.branchId}\u0000${ctx.mode}\u0000${key}`;
  const { waitMs } = ctx.services.config.idempotency;
  const deadline = Date.now() + waitMs;
  // In one process, repeats queue behind the first instead of racing it to the store.
  let waited = false;
  for (let prior = inflight.get(scope); prior !== undefined; prior = inflight.get(scope)) {
    const left = deadline - Date.now();
    if (left <= 0) throw inUse();
    waited = true;
    await Promise.race([prior.catch(() => {}), delay(left)]);
  }
  const work = run(deadline, waited);
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

/**
 * A key stays locked while its write is in progress: through its first transaction (the claim
 * commits with it), then through its continuation's work. After that the request that took it
 * must have died, and a repeat finishes its work.
 */
const LOCK_MARGIN_MS = 10_000;
const lockFor = (then: Continuation<unknown>, now: number): number => now + then.withinMs + LOCK_MARGIN_MS;

type FirstOutcome<R> =
  | { kind: 'stored'; stored: Stored }
  | { kind: 'existing'; rec: IdempotencyRecord | undefined }
  | { kind: 'continue'; continuation: Continuation<R> };

async function attempt<R>(
  req: FastifyRequest,
  ctx: Ctx,
  spec: WriteSpec<R>,
  key: string,
  deadline: number,
): Promise<{ stored: Stored; replayed: boolean }> {
  const { db, clock } = ctx.services;
  const fp = fingerprint(req);
  for (;;) {
    const now = clock.now();
    const outcome = await db.write<FirstOutcome<R>>(async (tx) => {
      if (!(await claimIdempotencyKey(tx, ctx.branchId, ctx.mode, key, fp, now, LOCK_MARGIN_MS))) {
        return { kind: 'existing', rec: await getIdempotencyRecord(tx, ctx.branchId, ctx.mode, key, now) };
      }
      try {
        const first = await tx.savepoint(() => spec.run({ ...ctx, tx }));
        if (first instanceof Continuation) {
          // Keep what the second phase needs, so another attempt can finish it after a crash.
          await keepPendingWork(tx, ctx.branchId, ctx.mode, key, JSON.stringify(first.saved), lockFor(first, now));
          return { kind: 'continue', continuation: first };
        }
        const stored = { status: spec.status, body: JSON.stringify(first) };
        const kept = spec.forReplay === undefined ? stored.body : JSON.stringify(spec.forReplay(first));
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
    if (outcome.kind === 'continue')
      return { stored: await finishSecondPhaseOrRelease(ctx, spec, key, outcome.continuation), replayed: false };

    const rec = outcome.rec;
    if (rec === undefined) continue; // released between our claim and read: try to claim again
    const answered = answerOf(rec, fp);
    if (answered !== null) return { stored: answered, replayed: true };
    const { lockedUntil, responseBody } = rec;
    if (lockedUntil !== null && lockedUntil < clock.now() && spec.resume !== undefined && responseBody !== null) {
      // The request that took this key died between its phases: finish its work, once.
      const then = spec.resume(ctx, JSON.parse(responseBody));
      const took = await db.write((tx) => takeOverPendingKey(tx, ctx.branchId, ctx.mode, key, lockedUntil, lockFor(then, clock.now())));
      if (took) return { stored: await finishSecondPhaseOrRelease(ctx, spec, key, then), replayed: true };
    }
    if (Date.now() >= deadline) throw inUse();
    await delay(20);
  }
}

/** A record's answer for a repeat: null while its request is still in flight. */
function answerOf(rec: IdempotencyRecord, fp: string): Stored | null {
  if (rec.fingerprint !== fp) {
    throw new AppError('idempotency-key-reuse', 'This Idempotency-Key was already used with a different method, path or body.');
  }
  return rec.state === 'done' ? { status: rec.responseStatus!, body: rec.responseBody! } : null;
}

/** A client error is the request's answer, stored like a success; null for anything else. */
function finalRefusal(req: FastifyRequest, err: unknown): Stored | null {
  if (!(err instanceof AppError)) return null;
  const { problem } = toProblem(req, err);
  return isFinalAnswer(problem) ? { status: problem.status, body: JSON.stringify(problem) } : null;
}

async function attemptSelfRecording(
  req: FastifyRequest,
  ctx: Ctx,
  spec: SelfRecordingWrite,
  key: string,
  deadline: number,
  waited: boolean,
): Promise<{ stored: Stored; replayed: boolean }> {
  const { db, clock } = ctx.services;
  const fp = fingerprint(req);
  // A repeat that waited for the request before it nearly always finds its answer stored: a read
  // is cheaper than a write that would find the key taken.
  for (let tries = 0; ; tries++) {
    const now = clock.now();
    if (waited && tries === 0) {
      const rec = await getIdempotencyRecord(db, ctx.branchId, ctx.mode, key, now);
      const answered = rec === undefined ? null : answerOf(rec, fp);
      if (answered !== null) return { stored: answered, replayed: true };
    }
    try {
      const done = await spec.commit(ctx, { key, fingerprint: fp, status: spec.status });
      if (done.kind === 'done') return { stored: { status: spec.status, body: done.answer }, replayed: false };
    } catch (err) {
      const refusal = finalRefusal(req, err);
      if (refusal === null) throw err;
      // Nothing was written: the refusal is stored under the key alone, unless the key was taken meanwhile.
      const recorded = await db.write((tx) =>
        recordAnsweredKey(tx, {
          branchId: ctx.branchId,
          mode: ctx.mode,
          key,
          fingerprint: fp,
          status: refusal.status,
          body: refusal.body,
          createdAt: now,
        }),
      );
      if (recorded) return { stored: refusal, replayed: false };
    }
    const rec = await getIdempotencyRecord(db, ctx.branchId, ctx.mode, key, now);
    if (rec === undefined) continue; // forgotten between the commit and the read: try again
    const answered = answerOf(rec, fp);
    if (answered !== null) return { stored: answered, replayed: true };
    if (Date.now() >= deadline) throw inUse();
    await delay(20);
  }
}

/**
 * A second phase that fails (5xx) is not stored, and nobody is working on the key any more: its
 * lock is released at once so that the client's retry finishes the committed first phase instead
 * of being told "in use" until the lock would have run out.
 */
async function finishSecondPhaseOrRelease<R>(ctx: Ctx, spec: WriteSpec<R>, key: string, then: Continuation<R>): Promise<Stored> {
  try {
    return await finishSecondPhase(ctx, spec, key, then);
  } catch (err) {
    const { db, clock } = ctx.services;
    await db.write((tx) => releaseIdempotencyLock(tx, ctx.branchId, ctx.mode, key, clock.now())).catch(() => {});
    throw err;
  }
}

async function finishSecondPhase<R>(ctx: Ctx, spec: WriteSpec<R>, key: string, then: Continuation<R>): Promise<Stored> {
  const record = await then.proceed(ctx);
  return ctx.services.db.write(async (tx) => {
    const stored = { status: spec.status, body: JSON.stringify(await record(tx)) };
    await storeIdempotentResponse(tx, ctx.branchId, ctx.mode, key, stored.status, stored.body);
    return stored;
  });
}
