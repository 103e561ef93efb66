// Stored answers of idempotent requests, scoped to branch and mode, kept 24 hours.
import type { Queryable, Tx } from './db.ts';
import { one } from './db.ts';
import type { Mode } from './tenancy.ts';

export type IdempotencyRecord = {
  fingerprint: string;
  state: 'pending' | 'done';
  lockedUntil: number | null;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
};

type Row = {
  fingerprint: string;
  state: 'pending' | 'done';
  locked_until: number | null;
  response_status: number | null;
  response_body: string | null;
  created_at: number;
};

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

export async function getIdempotencyRecord(
  q: Queryable,
  branchId: string,
  mode: Mode,
  key: string,
  now: number,
): Promise<IdempotencyRecord | undefined> {
  const r = await one<Row>(
    q,
    'SELECT fingerprint, state, locked_until, response_status, response_body, created_at FROM idempotency_keys WHERE branch_id = $1 AND mode = $2 AND key = $3 AND created_at >= $4',
    [branchId, mode, key, now - IDEMPOTENCY_TTL_MS],
  );
  return (
    r && {
      fingerprint: r.fingerprint,
      state: r.state,
      lockedUntil: r.locked_until === null ? null : Number(r.locked_until),
      responseStatus: r.response_status === null ? null : Number(r.response_status),
      responseBody: r.response_body,
      createdAt: Number(r.created_at),
    }
  );
}

/**
 * Claims the key for this request. On PostgreSQL a concurrent claim of the same key waits on the
 * unique index until the first transaction ends, then sees its row: that is what makes the same
 * key sent to two nodes at once produce one effect. Returns false when the key is already taken.
 */
export async function claimIdempotencyKey(
  tx: Tx,
  branchId: string,
  mode: Mode,
  key: string,
  fingerprint: string,
  now: number,
  lockMs: number,
): Promise<boolean> {
  const insert = async (): Promise<boolean> =>
    1 ===
    (await tx.run(
      `INSERT INTO idempotency_keys (branch_id, mode, key, fingerprint, state, locked_until, created_at)
     VALUES ($1, $2, $3, $4, 'pending', $5, $6) ON CONFLICT DO NOTHING`,
      [branchId, mode, key, fingerprint, now + lockMs, now],
    ));
  // A new key (nearly every request) costs this one statement.
  if (await insert()) return true;
  // An expired record (older than 24 h, not yet swept) is replaced, as if forgotten.
  const expired = await tx.run('DELETE FROM idempotency_keys WHERE branch_id = $1 AND mode = $2 AND key = $3 AND created_at < $4', [
    branchId,
    mode,
    key,
    now - IDEMPOTENCY_TTL_MS,
  ]);
  return expired === 1 && (await insert());
}

export async function storeIdempotentResponse(
  tx: Tx,
  branchId: string,
  mode: Mode,
  key: string,
  status: number,
  body: string,
): Promise<void> {
  await tx.run(
    "UPDATE idempotency_keys SET state = 'done', locked_until = NULL, response_status = $4, response_body = $5 WHERE branch_id = $1 AND mode = $2 AND key = $3",
    [branchId, mode, key, status, body],
  );
}

export async function releaseIdempotencyKey(tx: Tx, branchId: string, mode: Mode, key: string): Promise<void> {
  await tx.run("DELETE FROM idempotency_keys WHERE branch_id = $1 AND mode = $2 AND key = $3 AND state = 'pending'", [branchId, mode, key]);
}

/** Marks a pending key's lock as run out, so the next request with the key takes over its work. */
export async function releaseIdempotencyLock(tx: Tx, branchId: string, mode: Mode, key: string, now: number): Promise<void> {
  await tx.run("UPDATE idempotency_keys SET locked_until = $4 WHERE branch_id = $1 AND mode = $2 AND key = $3 AND state = 'pending'", [
    branchId,
    mode,
    key,
    now - 1,
  ]);
}

export async function sweepIdempotencyKeys(tx: Tx, now: number): Promise<number> {
  return tx.run('DELETE FROM idempotency_keys WHERE created_at < $1', [now - IDEMPOTENCY_TTL_MS]);
}
