// Every /v1 write goes through runWrite: one commit per write, and idempotency implemented once.
// A write with an Idempotency-Key records the key at the end of its own commit, once: with its
// answer, or, for an action that answers with a Continuation (ready: commit the transition, ring
// in-line, then answer), "pending" with what finishing needs, until a second transaction stores the
// answer. So a crash can never leave an effect without its key's record or a record without its
// effect. Nothing is claimed before the work: a key found taken rolls the commit back, and the
// request is answered from the record (a replay, a wait for a request in flight, the take-over of a
// pending key whose request died, or idempotency-key-reuse). How a write commits is its spec's:
// by default its action in a transaction of its own (commitInTransaction); a create commits its
// rows its store's way (Db.commitCreate). Either way the key's record is built by keyRecord and
// written by writeWithKey (src/store/idempotency.ts), or, for a create on PostgreSQL, with the
// create's rows. Decision 0002.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, TxCtx } from '../core/ctx.ts';
import { Continuation, finish } from '../actions/continuation.ts';
import { AppError } from '../domain/errors.ts';
import type { Committed, KeyToRecord } from '../core/write-commit.ts';
import {
  getIdempotencyRecord,
  keyRecord,
  releaseIdempotencyLock,
  storeIdempotentResponse,
  takeOverPendingKey,
  writeWithKey,
  type IdempotencyRecord,
} from '../store/idempotency.ts';
import { PROBLEM_CONTENT_TYPE } from '../contract/problem-catalogue.ts';
import { toProblem, type Problem } from './problems.ts';

/** A write's commit: its effect and, when the request has a key, the key's record, together or not at all. */
type Commit<R> = (ctx: Ctx, key: KeyToRecord | null) => Promise<Committed | { kind: 'continue'; continuation: Continuation<R> }>;

export type WriteSpec<R> = {
  status: number;
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
} & (
  | {
      /** The write's transaction: its answer, or a Continuation that finishes it after the commit. */
      run: (ctx: TxCtx) => Promise<R | Continuation<R>>;
    }
  | {
      /** A write that commits itself, its key's record with its answer among its rows (a create). */
      commit: Commit<R>;
    }
);

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
  const commit = 'commit' in spec ? spec.commit : commitInTransaction(spec.run, spec.forReplay);
  const key = ctx.idempotencyKey;
  if (key === null) {
    const done = await commit(ctx, null);
    if (done.kind === 'key-taken') throw new Error('a write without a key cannot find its key taken');
    const body = done.kind === 'done' ? done.answer : JSON.stringify(await finish(ctx, done.continuation));
    return send(reply, { status: spec.status, body }, false);
  }

  const scope = `${ctx.branchId}\u0000${ctx.mode}\u0000${key}`;
  const deadline = Date.now() + ctx.services.config.idempotency.waitMs;
  // In one process, repeats queue behind the first instead of racing it to the store.
  let waited = false;
  for (let prior = inflight.get(scope); prior !== undefined; prior = inflight.get(scope)) {
    const left = deadline - Date.now();
    if (left <= 0) throw inUse();
    waited = true;
    await Promise.race([prior.catch(() => {}), delay(left)]);
  }
  const work = attempt(req, ctx, spec, commit, key, deadline, waited);
  inflight.set(scope, work);
  try {
    const { stored, replayed } = await work;
    if (replayed) ctx.services.metrics?.idempotencyReplays.inc({ route: req.routeOptions.url ?? 'unmatched' });
    return send(reply, stored, replayed);
  } finally {
    if (inflight.get(scope) === work) inflight.delete(scope);
  }
}

/** The usual commit: the action in a transaction of its own, and the key's record last (writeWithKey). */
function commitInTransaction<R>(run: (ctx: TxCtx) => Promise<R | Continuation<R>>, forReplay?: (first: R) => unknown): Commit<R> {
  return (ctx, key) => {
    const { db, clock } = ctx.services;
    return writeWithKey<Committed | { kind: 'continue'; continuation: Continuation<R> }>(db, async (tx) => {
      const first = await run({ ...ctx, tx });
      const where = { branchId: ctx.branchId, mode: ctx.mode, at: clock.now() };
      if (first instanceof Continuation) {
        // Pending, with what another request needs to finish the work if this one dies first.
        const pending = { status: null, body: JSON.stringify(first.saved), lockedUntil: lockFor(first, clock.now()) };
        return { result: { kind: 'continue' as const, continuation: first }, record: keyRecord(key, where, pending) };
      }
      const answer = JSON.stringify(first);
      const kept = forReplay === undefined ? answer : JSON.stringify(forReplay(first));
      return { result: { kind: 'done' as const, answer }, record: keyRecord(key, where, { body: kept }) };
    });
  };
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
 * A pending key stays locked through its continuation's work. After that the request that
 * recorded it must have died, and a repeat finishes its work.
 */
const LOCK_MARGIN_MS = 10_000;
const lockFor = (then: Continuation<unknown>, now: number): number => now + then.withinMs + LOCK_MARGIN_MS;

async function attempt<R>(
  req: FastifyRequest,
  ctx: Ctx,
  spec: WriteSpec<R>,
  commit: Commit<R>,
  key: string,
  deadline: number,
  waited: boolean,
): Promise<{ stored: Stored; replayed: boolean }> {
  const { db, clock } = ctx.services;
  const fp = fingerprint(req);
  const read = () => getIdempotencyRecord(db, ctx.branchId, ctx.mode, key, clock.now());
  // A repeat that waited for the request before it nearly always finds its answer stored: a read
  // is cheaper than a commit that would find the key taken.
  let rec = waited ? await read() : undefined;
  for (;;) {
    if (rec === undefined) {
      const done = await commit(ctx, { key, fingerprint: fp, status: spec.status }).catch((err: unknown) => ({
        kind: 'failed' as const,
        err,
      }));
      if (done.kind === 'done') return { stored: { status: spec.status, body: done.answer }, replayed: false };
      if (done.kind === 'continue') return { stored: await finishSecondPhaseOrRelease(ctx, spec, key, done.continuation), replayed: false };
      // A client error is the request's answer. Nothing was written: it is stored under the key
      // alone, unless the key was taken meanwhile.
      const refusal = done.kind === 'failed' ? finalRefusal(req, done.err) : null;
      if (refusal !== null) {
        const where = { branchId: ctx.branchId, mode: ctx.mode, at: clock.now() };
        const record = keyRecord({ key, fingerprint: fp, status: refusal.status }, where, refusal);
        const written = await writeWithKey(db, async () => ({ result: { kind: 'done' as const }, record }));
        if (written.kind === 'done') return { stored: refusal, replayed: false };
      }
      // The key is taken. A failure may be this request meeting the effect of the one that took
      // it (a ring too soon after it, its row already there): the record answers.
      rec = await read();
      if (rec === undefined) {
        if (done.kind === 'failed' && refusal === null) throw done.err;
        continue; // forgotten between the commit and the read: try again
      }
    }
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
    rec = await read();
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
