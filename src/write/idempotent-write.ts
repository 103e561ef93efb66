// The one write path's idempotency, below HTTP: every write commits once, and a write with an
// Idempotency-Key records the key at the end of its own commit, once: with its answer, or, for an
// action that answers with a Continuation (ready: commit the transition, ring in-line, then
// answer), "pending" with what finishing needs, until a second transaction stores the answer. So a
// crash can never leave an effect without its key's record or a record without its effect. Nothing
// is claimed before the work: a key found taken rolls the commit back, and the request is answered
// from the record (a replay, a wait for a request in flight, the take-over of a pending key whose
// request died, or idempotency-key-reuse). How a write commits is its spec's: by default its action
// in a transaction of its own (commitInTransaction); a create commits its rows its store's way
// (Db.commitCreate). Either way the key's record is built by keyRecord and written by writeWithKey
// (src/store/idempotency.ts), or, for a create on PostgreSQL, with the create's rows. What is HTTP's
// (the request's fingerprint, which refusal is final, the reply) stays in src/http/write.ts. 0002.
import type { Action, Ctx, TxCtx } from '../core/ctx.ts';
import { Continuation } from '../actions/continuation.ts';
import { finish, finishSecondPhase, lockFor, writeWithKeyThenHooks } from './after-commit.ts';
import { AppError } from '../domain/errors.ts';
import type { Committed, KeyToRecord } from '../core/write-commit.ts';
import { getIdempotencyRecord, keyRecord, takeOverPendingKey, writeWithKey, type IdempotencyRecord } from '../store/idempotency.ts';

/** A write's commit: its effect and, when the request has a key, the key's record, together or not at all. */
type Commit<R> = (ctx: Ctx, key: KeyToRecord | null) => Promise<Committed | { kind: 'continue'; continuation: Continuation<R> }>;

export type WriteSpec<R, I = never> = {
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
      /**
       * The same, as a verb named with its input (a ready, a ring), so that the write path calls
       * the verb itself rather than a route's closure above it.
       */
      verb: Action<I, R | Continuation<R>>;
      input: I;
    }
  | {
      /**
       * A verb that commits itself, its key's record with its answer among its rows (a create),
       * named with its input rather than wrapped in a route's closure: the write path calls the
       * verb itself, never back into the route above it.
       */
      commit: (ctx: Ctx, input: I, key: KeyToRecord | null) => Promise<Committed>;
      input: I;
    }
);

/** An answer as sent and as stored under its key. */
export type Stored = { status: number; body: string };

/** A write's answer, and whether it is a replay of the key's first. */
export type Written = { stored: Stored; replayed: boolean };

/** A write's Idempotency-Key, what the request it came with is, and which of its refusals are final. */
export type KeyedRequest = {
  key: string;
  /** The method, path and body, canonical: a repeat with another one is idempotency-key-reuse. */
  fingerprint: string;
  /** A refusal that is the request's answer for good, to store under the key; null for any other error. */
  finalRefusal: (err: unknown) => Stored | null;
};

const inflight = new Map<string, Promise<unknown>>();

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The write, committed once; with a key, once across repeats, nodes and crashes. */
export async function writeOnce<R, I>(ctx: Ctx, spec: WriteSpec<R, I>, request: KeyedRequest | null): Promise<Written> {
  const commit: Commit<R> =
    'commit' in spec
      ? (c, key) => spec.commit(c, spec.input, key)
      : commitInTransaction('verb' in spec ? (tx) => spec.verb({ ctx: tx, input: spec.input }) : spec.run, spec.forReplay);
  if (request === null) {
    const done = await commit(ctx, null);
    if (done.kind === 'key-taken') throw new Error('a write without a key cannot find its key taken');
    const body = done.kind === 'done' ? done.answer : JSON.stringify(await finish(ctx, done.continuation));
    return { stored: { status: spec.status, body }, replayed: false };
  }

  const scope = `${ctx.branchId}\u0000${ctx.mode}\u0000${request.key}`;
  const deadline = Date.now() + ctx.services.config.idempotency.waitMs;
  // In one process, repeats queue behind the first instead of racing it to the store.
  let waited = false;
  for (let prior = inflight.get(scope); prior !== undefined; prior = inflight.get(scope)) {
    const left = deadline - Date.now();
    if (left <= 0) throw inUse();
    waited = true;
    await Promise.race([prior.catch(() => {}), delay(left)]);
  }
  const work = attempt(ctx, spec, commit, request, deadline, waited);
  inflight.set(scope, work);
  try {
    return await work;
  } finally {
    if (inflight.get(scope) === work) inflight.delete(scope);
  }
}

/** The usual commit: the action in a transaction of its own, the key's record last, then its after-commit work. */
function commitInTransaction<R>(run: (ctx: TxCtx) => Promise<R | Continuation<R>>, forReplay?: (first: R) => unknown): Commit<R> {
  return (ctx, key) => {
    const { db, clock } = ctx.services;
    return writeWithKeyThenHooks<Committed | { kind: 'continue'; continuation: Continuation<R> }>(db, async (tx) => {
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

function inUse(): AppError {
  return new AppError(
    'idempotency-key-in-use',
    'A request with this Idempotency-Key is still being processed; retry shortly to get its result.',
    { retry_after: 1 },
  );
}

async function attempt<R, I>(
  ctx: Ctx,
  spec: WriteSpec<R, I>,
  commit: Commit<R>,
  request: KeyedRequest,
  deadline: number,
  waited: boolean,
): Promise<Written> {
  const { db, clock } = ctx.services;
  const { key, fingerprint: fp } = request;
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
      if (done.kind === 'continue') return { stored: await finishSecondPhase(ctx, spec.status, key, done.continuation), replayed: false };
      // A client error is the request's answer. Nothing was written: it is stored under the key
      // alone, unless the key was taken meanwhile.
      const refusal = done.kind === 'failed' ? request.finalRefusal(done.err) : null;
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
      if (took) return { stored: await finishSecondPhase(ctx, spec.status, key, then), replayed: true };
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
