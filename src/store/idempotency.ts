// Stored answers of idempotent requests, scoped to branch and mode, kept 24 hours.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { RowWrite } from './rows.ts';
import type { Mode } from '../core/tenancy.ts';

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

/**
 * An Idempotency-Key that a write records itself, with its answer, in the commit of its effect (a
 * create: src/store/ticket-create.ts), instead of runWrite's claim before the work.
 */
export type KeyToRecord = { key: string; fingerprint: string; status: number };

/** What such a write answers: its answer's bytes (as stored under the key), or that the key was taken and nothing was written. */
export type SelfRecorded = { kind: 'done'; answer: string } | { kind: 'key-taken' };

/** A key's record with its final answer, written with the effect in one write (a create's). */
export type AnsweredKey = {
  branchId: string;
  mode: Mode;
  key: string;
  fingerprint: string;
  status: number;
  body: string;
  createdAt: number;
};

export const answeredKeyRow = (k: AnsweredKey): RowWrite => ({
  table: 'idempotency_keys',
  values: {
    branch_id: k.branchId,
    mode: k.mode,
    key: k.key,
    fingerprint: k.fingerprint,
    state: 'done',
    locked_until: null,
    response_status: k.status,
    response_body: k.body,
    created_at: k.createdAt,
  },
});

/**
 * How an answered key's INSERT meets an existing record: one older than 24 hours (not yet swept)
 * is replaced, as if forgotten; a live one is kept and the INSERT writes nothing, which tells the
 * writer that the key was taken. On PostgreSQL a record another transaction has just inserted
 * makes this wait for that transaction to end, as the claim does.
 */
export const ANSWERED_KEY_CONFLICT = `ON CONFLICT (branch_id, mode, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state,
  locked_until = NULL, response_status = excluded.response_status, response_body = excluded.response_body, created_at = excluded.created_at
  WHERE idempotency_keys.created_at < excluded.created_at - ${IDEMPOTENCY_TTL_MS}`;

/**
 * Records the key with its answer in the effect's transaction: one write where a claim and then
 * the stored answer take two. Returns false, writing nothing, when the key is taken; the caller
 * must then undo the effect (throw, so that its savepoint rolls back).
 */
export async function recordAnsweredKey(tx: Tx, k: AnsweredKey): Promise<boolean> {
  const values = Object.values(answeredKeyRow(k).values);
  return (await tx.run(ANSWERED_KEY_INSERT, values)) === 1;
}

const ANSWERED_KEY_INSERT = `INSERT INTO idempotency_keys (branch_id, mode, key, fingerprint, state, locked_until, response_status, response_body, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ${ANSWERED_KEY_CONFLICT}`;

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

/**
 * Keeps, on a key still pending, what another request needs to finish the write's second phase
 * if this one dies between the phases (src/actions/continuation.ts), and how long it is locked.
 */
export async function keepPendingWork(
  tx: Tx,
  branchId: string,
  mode: Mode,
  key: string,
  saved: string,
  lockedUntil: number,
): Promise<void> {
  await tx.run('UPDATE idempotency_keys SET response_body = $4, locked_until = $5 WHERE branch_id = $1 AND mode = $2 AND key = $3', [
    branchId,
    mode,
    key,
    saved,
    lockedUntil,
  ]);
}

/** Takes over a pending key whose lock ran out at `lockedUntil` (its request died); false when another did first. */
export async function takeOverPendingKey(
  tx: Tx,
  branchId: string,
  mode: Mode,
  key: string,
  lockedUntil: number,
  until: number,
): Promise<boolean> {
  const n = await tx.run(
    "UPDATE idempotency_keys SET locked_until = $4 WHERE branch_id = $1 AND mode = $2 AND key = $3 AND state = 'pending' AND locked_until = $5",
    [branchId, mode, key, until, lockedUntil],
  );
  return n === 1;
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
