// What the write path does around and after a write's commit (src/write/idempotent-write.ts): a
// Continuation run to its answer, the write's transactions' after-commit work, and a continuing
// write's pending Idempotency-Key.
//
// The write path's transactions keep their after-commit work (the live update, the webhook jobs'
// hand-off, a ring's metric) and run it themselves once the store has committed: one hand-off by
// the write path when the commit returns, instead of the store calling each hook back up the
// layers (decision 0065). Work undone by a savepoint takes its hooks with it, as in the store's
// own list; a commit that fails, or finds its Idempotency-Key taken, runs none.
//
// A keyed write that continues leaves its key pending: locked while its request works, then
// finished by a second transaction that stores the answer, for the request that committed the
// first and for a repeat that takes over a request that died. Decision 0002.
import type { Ctx } from '../core/ctx.ts';
import type { Db, Tx } from '../core/db.ts';
import type { Continuation } from '../actions/continuation.ts';
import { keepingHooks, runAfterCommitHooks } from '../store/db.ts';
import { releaseIdempotencyLock, storeIdempotentResponse, writeWithKey, type KeyRecord } from '../store/idempotency.ts';

/** Runs a continuation to its answer: the work, then its transaction. */
export async function finish<A>(ctx: Ctx, continuation: Continuation<A>): Promise<A> {
  const record = await continuation.proceed(ctx);
  return writeThenHooks(ctx.services.db, (tx) => record({ ...ctx, tx }));
}

/**
 * A pending key stays locked through its continuation's work. After that the request that
 * recorded it must have died, and a repeat finishes its work.
 */
const LOCK_MARGIN_MS = 10_000;
export const lockFor = (then: Continuation<unknown>, now: number): number => now + then.withinMs + LOCK_MARGIN_MS;

/** What a continuing write's second phase stores under its key: the answer as the request keeps it. */
type KeptAnswer<R> = { key: string; status: number; answer: (result: R) => string };

/**
 * A second phase that fails (5xx) is not stored, and nobody is working on the key any more: its
 * lock is released at once so that the client's retry finishes the committed first phase instead
 * of being told "in use" until the lock would have run out.
 */
export async function finishSecondPhase<R>(ctx: Ctx, kept: KeptAnswer<R>, then: Continuation<R>): Promise<{ result: R; answer: string }> {
  try {
    return await storeSecondPhase(ctx, kept, then);
  } catch (err) {
    const { db, clock } = ctx.services;
    await db.write((tx) => releaseIdempotencyLock(tx, ctx.branchId, ctx.mode, kept.key, clock.now())).catch(() => {});
    throw err;
  }
}

async function storeSecondPhase<R>(ctx: Ctx, kept: KeptAnswer<R>, then: Continuation<R>): Promise<{ result: R; answer: string }> {
  const record = await then.proceed(ctx);
  return writeThenHooks(ctx.services.db, async (tx) => {
    const result = await record({ ...ctx, tx });
    const answer = kept.answer(result);
    await storeIdempotentResponse(tx, ctx.branchId, ctx.mode, kept.key, kept.status, answer);
    return { result, answer };
  });
}

type Hooks = Array<() => void>;

/** writeWithKey (src/store/idempotency.ts), then the work's after-commit hooks once it has committed. */
export async function writeWithKeyThenHooks<T>(
  db: Db,
  work: (tx: Tx) => Promise<{ result: T; record: KeyRecord | null }>,
  shared = false,
): Promise<T | { kind: 'key-taken' }> {
  const hooks: Hooks = [];
  const done = await writeWithKey(db, (tx) => work(keepingHooks(tx, hooks)), shared);
  const taken = typeof done === 'object' && done !== null && 'kind' in done && done.kind === 'key-taken';
  if (!taken) runAfterCommitHooks(hooks);
  return done;
}

/** db.write, then the work's after-commit hooks once it has committed. */
export async function writeThenHooks<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const hooks: Hooks = [];
  const result = await db.write((tx) => fn(keepingHooks(tx, hooks)));
  runAfterCommitHooks(hooks);
  return result;
}
