// The one write path: every write (a route's, a job's, a connector's, the CLI's) names its verb and
// its input, and this module opens the transaction, runs the verb, records the Idempotency-Key,
// runs the after-commit work and answers the verb's typed result. Nothing above it hands it a
// closure to run in the transaction, and nothing outside src/store and src/write opens one
// (test/unit/one-write-path.test.ts). Presenting the answer is the caller's, after the write
// (src/http/write.ts); the key's record keeps the answer as the request says it is sent
// (`KeyedRequest.answer`), so that a repeat gets the same bytes. Decision 0078.
//
// Idempotency (decision 0002): a write with an Idempotency-Key records the key at the end of its
// own commit, once: with its answer, or, for a verb that answers with a Continuation (ready:
// commit the transition, ring in-line, then answer), "pending" with what finishing needs, until a
// second transaction stores the answer. So a crash can never leave an effect without its key's
// record or a record without its effect. Nothing is claimed before the work: a key found taken
// rolls the commit back, and the request is answered from the record (a replay, a wait for a
// request in flight, the take-over of a pending key whose request died, or
// idempotency-key-reuse). How a write commits is its verb's: by default in a transaction of its
// own (commitInTransaction); a create commits its rows its store's way (Db.commitCreate).
import type { Action, Ctx, TxCtx } from '../core/ctx.ts';
import { Continuation } from '../actions/continuation.ts';
import { finish, finishSecondPhase, lockFor, writeWithKeyThenHooks } from './after-commit.ts';
import { AppError } from '../domain/errors.ts';
import type { KeyToRecord } from '../core/write-commit.ts';
import { mayShareCommit } from '../core/shared-commit.ts';
import { getIdempotencyRecord, keyRecord, takeOverPendingKey, writeWithKey, type IdempotencyRecord } from '../store/idempotency.ts';

/** A verb that commits itself, its key's record with its answer among its rows (a create). */
export type CommitVerb<I, R> = (args: { ctx: Ctx; input: I; key: KeyToRecord | null }) => Promise<CommitOutcome<R>>;

/** What a committing verb did: its typed result and its answer as the key keeps it, or its key found taken (nothing written). */
export type CommitOutcome<R> = { kind: 'done'; result: R; answer: string } | { kind: 'key-taken' };

export type WriteSpec<I, R> =
  | {
      /** The verb, run in the write's transaction: its result, or a Continuation that finishes it after the commit. */
      verb: Action<I, R | Continuation<R>>;
      input: I;
      /**
       * For a verb that may continue: its continuation rebuilt from what it saved, for a request
       * with the same Idempotency-Key that finds the first transaction committed by a request that
       * died before the second.
       */
      resume?: (ctx: Ctx, saved: unknown) => Continuation<R>;
    }
  | {
      /** A verb that commits itself (a create): the write path hands it the key to record. */
      commit: CommitVerb<I, R>;
      input: I;
    };

/** An answer as sent and as stored under its key. */
export type Stored = { status: number; body: string };

/**
 * A write's outcome: the verb's typed result (`answer`: what the key keeps of it, when the write
 * serialised one), or an answer stored under the key (a replay, or a refusal stored for good).
 * `replayed`: the answer is the key's first request's, not this one's.
 */
export type Written<R> =
  | { kind: 'result'; result: R; answer: string | null; replayed: boolean }
  | { kind: 'stored'; stored: Stored; replayed: boolean };

/** A write's Idempotency-Key, what the request it came with is, and how its answers are kept. */
export type KeyedRequest<R> = {
  key: string;
  /** The method, path and body, canonical: a repeat with another one is idempotency-key-reuse. */
  fingerprint: string;
  /** The status kept with the answer. */
  status: number;
  /** The answer as the key keeps it, serialised; by default the result's JSON. */
  answer?: (result: R) => string;
  /** A refusal that is the request's answer for good, to store under the key; null for any other error. */
  finalRefusal: (err: unknown) => Stored | null;
};

/** What a continuing write's second phase needs to store its answer under the key. */
export type KeptAnswer<R> = { key: string; status: number; answer: (result: R) => string };

type Commit<R> = (
  ctx: Ctx,
  key: KeyToRecord | null,
  answer: (result: R) => string,
) => Promise<
  { kind: 'done'; result: R; answer: string | null } | { kind: 'key-taken' } | { kind: 'continue'; continuation: Continuation<R> }
>;

const inflight = new Map<string, Promise<unknown>>();

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const asJson = (result: unknown): string => JSON.stringify(result) ?? 'null';

/** The verb, committed once; with a key, once across repeats, nodes and crashes. */
export async function writeOnce<I, R>(ctx: Ctx, spec: WriteSpec<I, R>, request: KeyedRequest<R> | null = null): Promise<Written<R>> {
  const commit: Commit<R> =
    'commit' in spec ? (c, key) => spec.commit({ ctx: c, input: spec.input, key }) : commitInTransaction(spec.verb, spec.input);
  if (request === null) {
    const done = await commit(ctx, null, asJson);
    if (done.kind === 'key-taken') throw new Error('a write without a key cannot find its key taken');
    if (done.kind === 'done') return { kind: 'result', result: done.result, answer: done.answer, replayed: false };
    return { kind: 'result', result: await finish(ctx, done.continuation), answer: null, replayed: false };
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

/** The result of a write that must have one (a job's, a connector's, the CLI's): never a stored answer, which only a keyed request gets. */
export async function write<I, R>(ctx: Ctx, spec: WriteSpec<I, R>): Promise<R> {
  const written = await writeOnce(ctx, spec, null);
  if (written.kind !== 'result') throw new Error('a write without a key answered a stored answer');
  return written.result;
}

/** The usual commit: the verb in a transaction of its own, the key's record last, then its after-commit work. */
function commitInTransaction<I, R>(verb: Action<I, R | Continuation<R>>, input: I): Commit<R> {
  return (ctx, key, answer) => {
    const { db, clock } = ctx.services;
    type Outcome = { kind: 'done'; result: R; answer: string | null } | { kind: 'continue'; continuation: Continuation<R> };
    // A ticket's transition shares its commit with those that arrive together (decision 0079).
    return writeWithKeyThenHooks<Outcome>(
      db,
      async (tx) => {
        const first = await verb({ ctx: { ...ctx, tx } satisfies TxCtx, input });
        const where = { branchId: ctx.branchId, mode: ctx.mode, at: clock.now() };
        if (first instanceof Continuation) {
          // Pending, with what another request needs to finish the work if this one dies first.
          const pending = { status: null, body: JSON.stringify(first.saved), lockedUntil: lockFor(first, clock.now()) };
          return { result: { kind: 'continue', continuation: first }, record: keyRecord(key, where, pending) };
        }
        if (key === null) return { result: { kind: 'done', result: first, answer: null }, record: null };
        const kept = answer(first);
        return { result: { kind: 'done', result: first, answer: kept }, record: keyRecord(key, where, { body: kept }) };
      },
      mayShareCommit(verb),
    );
  };
}

function inUse(): AppError {
  return new AppError(
    'idempotency-key-in-use',
    'A request with this Idempotency-Key is still being processed; retry shortly to get its result.',
    { retry_after: 1 },
  );
}

async function attempt<I, R>(
  ctx: Ctx,
  spec: WriteSpec<I, R>,
  commit: Commit<R>,
  request: KeyedRequest<R>,
  deadline: number,
  waited: boolean,
): Promise<Written<R>> {
  const { db, clock } = ctx.services;
  const { key, fingerprint: fp, status } = request;
  const kept: KeptAnswer<R> = { key, status, answer: request.answer ?? asJson };
  const read = () => getIdempotencyRecord(db, ctx.branchId, ctx.mode, key, clock.now());
  // A repeat that waited for the request before it nearly always finds its answer stored: a read
  // is cheaper than a commit that would find the key taken.
  let rec = waited ? await read() : undefined;
  for (;;) {
    if (rec === undefined) {
      const done = await commit(ctx, { key, fingerprint: fp, status }, kept.answer).catch((err: unknown) => ({
        kind: 'failed' as const,
        err,
      }));
      if (done.kind === 'done') return { kind: 'result', result: done.result, answer: done.answer, replayed: false };
      if (done.kind === 'continue') {
        const finished = await finishSecondPhase(ctx, kept, done.continuation);
        return { kind: 'result', ...finished, replayed: false };
      }
      // A client error is the request's answer. Nothing was written: it is stored under the key
      // alone, unless the key was taken meanwhile.
      const refusal = done.kind === 'failed' ? request.finalRefusal(done.err) : null;
      if (refusal !== null) {
        const where = { branchId: ctx.branchId, mode: ctx.mode, at: clock.now() };
        const record = keyRecord({ key, fingerprint: fp, status: refusal.status }, where, refusal);
        const written = await writeWithKey(db, async () => ({ result: { kind: 'done' as const }, record }));
        if (written.kind === 'done') return { kind: 'stored', stored: refusal, replayed: false };
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
    if (answered !== null) return { kind: 'stored', stored: answered, replayed: true };
    const { lockedUntil, responseBody } = rec;
    const resume = 'resume' in spec ? spec.resume : undefined;
    if (lockedUntil !== null && lockedUntil < clock.now() && resume !== undefined && responseBody !== null) {
      // The request that took this key died between its phases: finish its work, once.
      const then = resume(ctx, JSON.parse(responseBody));
      const took = await db.write((tx) => takeOverPendingKey(tx, ctx.branchId, ctx.mode, key, lockedUntil, lockFor(then, clock.now())));
      if (took) return { kind: 'result', ...(await finishSecondPhase(ctx, kept, then)), replayed: true };
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
