// Stored answers of idempotent requests, scoped to branch and mode, kept 24 hours. Every write's
// record is built here (keyRecord) and written here (writeWithKey), the create's included; a
// create on PostgreSQL sends the same record's row (keyRecordRow) with its batch's rows.
import type { Db, Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { RowWrite } from '../core/events.ts';
import type { Mode } from '../core/tenancy.ts';
import type { KeyToRecord } from '../core/write-commit.ts';

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
 * A key's record, written once, at the end of its write's commit: `done` with the answer, or, for a
 * write that continues after its commit (status null), `pending` with what finishing it needs
 * (src/actions/continuation.ts), locked until `lockedUntil`.
 */
export type KeyRecord = {
  branchId: string;
  mode: Mode;
  key: string;
  fingerprint: string;
  status: number | null;
  body: string;
  lockedUntil?: number;
  createdAt: number;
};

/** What a key's record holds besides the key: the answer's status and body, or, pending, what finishing needs. */
export type KeyAnswer = { status?: number | null; body: string; lockedUntil?: number };

/**
 * The one builder of a key's record, for every write (a create's too): the key as the request
 * gave it, in the write's branch and mode, at `at`, with `answer`. Null for a write without a key.
 */
export const keyRecord = (
  key: KeyToRecord | null,
  where: { branchId: string; mode: Mode; at: number },
  answer: KeyAnswer,
): KeyRecord | null => (key === null ? null : { branchId: where.branchId, mode: where.mode, ...key, ...answer, createdAt: where.at });

/** The record as a row: what recordKey inserts, and what a batch of creates inserts with its rows (store/postgres). */
export const keyRecordRow = (k: KeyRecord): RowWrite => ({
  table: 'idempotency_keys',
  values: {
    branch_id: k.branchId,
    mode: k.mode,
    key: k.key,
    fingerprint: k.fingerprint,
    state: k.status === null ? 'pending' : 'done',
    locked_until: k.lockedUntil ?? null,
    response_status: k.status,
    response_body: k.body,
    created_at: k.createdAt,
  },
});

/**
 * How a key's INSERT meets an existing record: one older than 24 hours (not yet swept) is
 * replaced, as if forgotten; a live one is kept and the INSERT writes nothing, which tells the
 * writer that the key was taken. On PostgreSQL a record another transaction has just inserted
 * makes this wait for that transaction to end: that is what makes the same key sent to two nodes
 * at once produce one effect.
 */
const KEY_CONFLICT = `ON CONFLICT (branch_id, mode, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state,
  locked_until = excluded.locked_until, response_status = excluded.response_status, response_body = excluded.response_body,
  created_at = excluded.created_at WHERE idempotency_keys.created_at < excluded.created_at - ${IDEMPOTENCY_TTL_MS}`;

const KEY_INSERT = `INSERT INTO idempotency_keys (branch_id, mode, key, fingerprint, state, locked_until, response_status, response_body, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ${KEY_CONFLICT}`;

/**
 * Records the key in its write's transaction, last. Returns false, writing nothing, when the key
 * is taken; the caller must then undo the write (throw, so that its transaction rolls back).
 */
export async function recordKey(tx: Tx, k: KeyRecord): Promise<boolean> {
  return (await tx.run(KEY_INSERT, Object.values(keyRecordRow(k).values))) === 1;
}

/** Thrown inside a write to undo it when its key turns out to be taken; never leaves writeWithKey. */
const KEY_TAKEN = new Error('idempotency key taken');

/**
 * The one way a write commits with its key's record in a transaction (every write but a create on
 * PostgreSQL, whose rows statement writes keyRecordRow): `work` does the write and answers its
 * result with the record (null: no key), which is written last, in the same commit. A key found
 * taken undoes the work (its savepoint or transaction) and answers 'key-taken': a replay, nearly
 * always, costs the work instead of a read before every keyed write.
 */
export async function writeWithKey<T>(
  db: Db,
  work: (tx: Tx) => Promise<{ result: T; record: KeyRecord | null }>,
  shared = false,
): Promise<T | { kind: 'key-taken' }> {
  const body = async (tx: Tx): Promise<T> => {
    const { result, record } = await work(tx);
    if (record !== null && !(await recordKey(tx, record))) throw KEY_TAKEN;
    return result;
  };
  try {
    // `shared`: a small write, whose transaction may share its commit (Db.writeShared).
    return await (shared ? db.writeShared(body) : db.write(body));
  } catch (err) {
    if (err === KEY_TAKEN) return { kind: 'key-taken' };
    throw err;
  }
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
