// A branch's ticket history written straight into the store in one statement per batch, for the
// list query plan test and the bench's history scenario: a million tickets in 20 to 60 s on
// either engine, where creating them through the API would take hours.
//
// Ticket number `s` (0 = newest) was created at `newestAt - s * everyMs`; its id is the id
// readybell would have given it then (the time prefix is its created_at, which the list's created
// range relies on). The `open` newest tickets are open, alternately ready and created; the rest
// are closed: 90 % collected, 7 % cancelled, 3 % expired. Every tenth ticket is in queue B, the
// others in A; each has its own external_ref, `order-<s>`.
import type { Db } from '../../src/core/db.ts';
import type { Mode } from '../../src/core/tenancy.ts';

export type History = {
  branchId: string;
  mode: Mode;
  newestAt: number;
  everyMs: number;
  open: number;
  /** 0–1,000,000, different for each history of a store: ids made at the same time differ by it. */
  tag: number;
};

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** `chars` Crockford base32 digits of a non-negative integer expression, most significant first (ids.ts's encoding). */
function base32(expr: string, chars: number): string {
  const digits: string[] = [];
  for (let k = chars - 1; k >= 0; k--) digits.push(`substr('${ALPHABET}', CAST(((${expr}) >> ${5 * k}) & 31 AS INTEGER) + 1, 1)`);
  return digits.join(' || ');
}

// The 16 characters after the time: the tag, then the ticket's number (12 characters: 60 bits,
// so no shift reaches the 64-bit integer's width, where the two engines disagree).
const RANDOM_PART = `${base32('CAST($8 AS BIGINT)', 4)} || ${base32('n', 12)}`;

// $1 branch, $2 mode, $3 newestAt, $4 everyMs, $5 open, $6 first s, $7 last s (inclusive), $8 tag.
const FILL_SQL = `
WITH RECURSIVE s(n) AS (SELECT CAST($6 AS BIGINT) UNION ALL SELECT n + 1 FROM s WHERE n < CAST($7 AS BIGINT)),
t AS (
  SELECT n, CAST($3 AS BIGINT) - n * CAST($4 AS BIGINT) AS at,
    CASE WHEN n < CAST($5 AS BIGINT) THEN (CASE WHEN n % 2 = 0 THEN 'ready' ELSE 'created' END)
         WHEN n % 100 < 90 THEN 'collected' WHEN n % 100 < 97 THEN 'cancelled' ELSE 'expired' END AS status,
    CASE WHEN n % 10 = 0 THEN 'B' ELSE 'A' END AS queue
  FROM s
)
INSERT INTO tickets (id, branch_id, mode, queue, number, display_number, status, token, external_ref, created_at,
  ready_at, collected_at, cancelled_at, expired_at, closed_at, cancel_reason, notifications, rings, expires_at, updated_at)
SELECT 'tk_' || ${base32('at', 10)} || ${RANDOM_PART}, $1, $2, queue, CAST(n % 1000 AS INTEGER) + 1,
  queue || '-' || CAST(CAST(n % 1000 AS INTEGER) + 1 AS TEXT), status,
  'hist' || ${base32('at', 10)} || ${RANDOM_PART} || $1, 'order-' || CAST(n AS TEXT), at,
  CASE WHEN status IN ('ready', 'collected') THEN at + 300000 END,
  CASE WHEN status = 'collected' THEN at + 600000 END,
  CASE WHEN status = 'cancelled' THEN at + 600000 END,
  CASE WHEN status = 'expired' THEN at + 86400000 END,
  CASE WHEN status = 'collected' OR status = 'cancelled' THEN at + 600000 WHEN status = 'expired' THEN at + 86400000 END,
  CASE WHEN status = 'cancelled' THEN 'customer_left' END,
  'none', CASE WHEN status IN ('ready', 'collected') THEN 1 ELSE 0 END, at + 86400000, at + 600000
FROM t`;

const BATCH = 100_000;

/** Writes tickets `from` to `to - 1` of history `h` (so a history can grow older in steps). */
export async function fillHistory(db: Db, h: History, from: number, to: number): Promise<void> {
  for (let first = from; first < to; first += BATCH) {
    const last = Math.min(to, first + BATCH) - 1;
    await db.write((tx) => tx.run(FILL_SQL, [h.branchId, h.mode, h.newestAt, h.everyMs, h.open, first, last, h.tag]));
  }
  // What a store that has lived with this history looks like. PostgreSQL plans from statistics,
  // and autovacuum would long have set the rows' hint bits and visibility map; SQLite would have
  // checkpointed its write-ahead log, which otherwise every read consults page by page.
  if (db.dialect === 'postgres') await db.query('VACUUM ANALYZE tickets');
  else await db.query('PRAGMA wal_checkpoint(TRUNCATE)');
}
