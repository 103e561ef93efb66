// A keyed write that continues after its commit (a ready rings, then answers) leaves its key
// pending: locked while its request works, then finished by a second transaction that stores the
// answer. Here is that lock and that second phase, for the request that committed the first and
// for a repeat that takes over a request that died (src/actions/idempotent-write.ts). Decision 0002.
import type { Ctx } from '../core/ctx.ts';
import type { Continuation } from './continuation.ts';
import { releaseIdempotencyLock, storeIdempotentResponse } from '../store/idempotency.ts';
import { writeThenHooks } from './after-commit.ts';

type Stored = { status: number; body: string };

/**
 * A pending key stays locked through its continuation's work. After that the request that
 * recorded it must have died, and a repeat finishes its work.
 */
const LOCK_MARGIN_MS = 10_000;
export const lockFor = (then: Continuation<unknown>, now: number): number => now + then.withinMs + LOCK_MARGIN_MS;

/**
 * A second phase that fails (5xx) is not stored, and nobody is working on the key any more: its
 * lock is released at once so that the client's retry finishes the committed first phase instead
 * of being told "in use" until the lock would have run out.
 */
export async function finishSecondPhase<R>(ctx: Ctx, status: number, key: string, then: Continuation<R>): Promise<Stored> {
  try {
    return await storeSecondPhase(ctx, status, key, then);
  } catch (err) {
    const { db, clock } = ctx.services;
    await db.write((tx) => releaseIdempotencyLock(tx, ctx.branchId, ctx.mode, key, clock.now())).catch(() => {});
    throw err;
  }
}

async function storeSecondPhase<R>(ctx: Ctx, status: number, key: string, then: Continuation<R>): Promise<Stored> {
  const record = await then.proceed(ctx);
  return writeThenHooks(ctx.services.db, async (tx) => {
    const stored = { status, body: JSON.stringify(await record(tx)) };
    await storeIdempotentResponse(tx, ctx.branchId, ctx.mode, key, stored.status, stored.body);
    return stored;
  });
}
