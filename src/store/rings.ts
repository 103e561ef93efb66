// The statements of a ring's life that ready, ring again and the automatic rings share: the
// ticket's change and its ring count in one UPDATE, the ring row with its jobs, and the ring's
// completion. Each does in one statement what used to take several, because on PostgreSQL every
// statement is a round trip, and ready pays them between the POS's request and the page's ring.
import type { Tx } from './db.ts';
import { fromJson, one, toJson } from './db.ts';
import { completeJobByKey, jobPayloadJson, type JobRecord } from './outbox.ts';
import type { Mode } from './tenancy.ts';
import { getTicket, toTicket, TICKET_COLUMNS, type RingRecord, type Ticket } from './tickets.ts';
import type { TicketStatus } from '../domain/ticket-state.ts';
import { withDefaults, type BranchSettings } from '../domain/branch-settings.ts';

/** What the channels need of the branch: its name (texts) and settings (voice, SMS, language). */
export type RingBranch = { name: string; settings: BranchSettings };

export type RingingTicket = { ticket: Ticket; branch: RingBranch; pushSubscriptions: number };

/** The ring's outbox job: one per (ticket, ring number), so a ring is attempted by one job. */
export const ringJobKey = (ticketId: string, seq: number): string => `ring:${ticketId}:${seq}`;

export type RingStart = {
  branchId: string;
  mode: Mode;
  id: string;
  /** The only state the operation starts from (ready: created; ring, reminders: ready). */
  from: TicketStatus;
  to: TicketStatus;
  now: number;
  readyAt?: number;
  /** Refuse (no row) when the ticket was rung after this instant: the manual ring's interval. */
  notRungAfter?: number;
};

/**
 * Moves the ticket from `from` to `to` and counts a ring on it, in one conditional UPDATE that
 * also returns what the ring needs next (the branch for reminders and texts, whether the ticket
 * has push subscriptions). Undefined, with nothing written, when the ticket is missing, in
 * another state, or (with `notRungAfter`) rung too recently: the caller reads it to say which.
 */
// One fixed text per statement: the store caches prepared statements by their text, and a text
// built anew on every call costs a fresh hash and a full comparison to find.
const START_RING = `UPDATE tickets
  SET status = $4, updated_at = $5, rings = rings + 1, last_ring_at = $5, ready_at = COALESCE(CAST($7 AS BIGINT), ready_at)
  WHERE id = $1 AND branch_id = $2 AND mode = $3 AND status = $6 AND (CAST($8 AS BIGINT) IS NULL OR last_ring_at IS NULL OR last_ring_at <= CAST($8 AS BIGINT))
  RETURNING ${TICKET_COLUMNS},
    (SELECT b.name FROM branches b WHERE b.id = tickets.branch_id) AS ring_branch_name,
    (SELECT b.settings FROM branches b WHERE b.id = tickets.branch_id) AS ring_branch_settings,
    (SELECT COUNT(*) FROM push_subscriptions p WHERE p.ticket_id = tickets.id AND p.branch_id = tickets.branch_id AND p.mode = tickets.mode) AS ring_push_subscriptions`;

export async function startTicketRing(tx: Tx, s: RingStart): Promise<RingingTicket | undefined> {
  const row = await one(tx, START_RING, [s.id, s.branchId, s.mode, s.to, s.now, s.from, s.readyAt ?? null, s.notRungAfter ?? null]);
  if (row === undefined) return undefined;
  return {
    ticket: toTicket(row),
    branch: { name: String(row.ring_branch_name ?? ''), settings: withDefaults(fromJson(row.ring_branch_settings, {})) },
    pushSubscriptions: Number(row.ring_push_subscriptions ?? 0),
  };
}

const RING_INSERT =
  'INSERT INTO rings (id, ticket_id, branch_id, mode, seq, reason, created_at, completed_at, result) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)';

/**
 * Inserts the ring and its jobs (its outbox job, a first reminder); a job whose key exists is
 * left alone. One statement on PostgreSQL, two on SQLite (no data-modifying WITH there, and
 * statements cost no round trip).
 */
const jobInserts = new Map<string, string>();

/** INSERT of `count` jobs whose parameters start after `from`, one text per shape. */
function jobInsert(count: number, from: number): string {
  const shape = `${count}:${from}`;
  let sql = jobInserts.get(shape);
  if (sql === undefined) {
    const rows = Array.from({ length: count }, (_, i) => {
      const p = (k: number): string => `$${from + i * 6 + k}`;
      return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, 0, ${p(6)})`;
    });
    const insert = `INSERT INTO jobs (id, kind, key, payload, run_at, attempts, created_at) VALUES ${rows.join(', ')} ON CONFLICT (key) DO NOTHING`;
    sql = from === 0 ? insert : `WITH ring AS (${RING_INSERT}) ${insert}`;
    jobInserts.set(shape, sql);
  }
  return sql;
}

/** The ring and its jobs: nothing in the transaction reads them back, so they go with its COMMIT. */
export async function insertRingWithJobs(tx: Tx, r: RingRecord, jobs: readonly JobRecord[]): Promise<void> {
  const ringValues = [r.id, r.ticketId, r.branchId, r.mode, r.seq, r.reason, r.createdAt, r.completedAt, toJson(r.result)];
  const jobValues = jobs.flatMap((j) => [j.id, j.kind, j.key, jobPayloadJson(j.payload), j.runAt, j.createdAt]);
  if (jobs.length > 0 && tx.dialect === 'postgres') {
    await tx.later(jobInsert(jobs.length, ringValues.length), [...ringValues, ...jobValues]);
    return;
  }
  await tx.later(RING_INSERT, ringValues);
  if (jobs.length > 0) await tx.later(jobInsert(jobs.length, 0), jobValues);
}

const COMPLETE_RING_PG = `WITH r AS (UPDATE rings SET completed_at = $2, result = $3 WHERE id = $1 AND completed_at IS NULL RETURNING id),
       j AS (UPDATE jobs SET done_at = $2, locked_until = NULL WHERE key = $4 AND done_at IS NULL AND EXISTS (SELECT 1 FROM r))
  SELECT (SELECT COUNT(*) FROM r) AS ring_completed, t.*
  FROM (SELECT 1 AS one) o LEFT JOIN (SELECT ${TICKET_COLUMNS} FROM tickets WHERE id = $5 AND branch_id = $6 AND mode = $7) t ON true`;

/**
 * Records a ring's result once (false: another attempt already did), marks its outbox job done
 * when it did, and reads the ticket for the answer and the ticket.rung event: one statement on
 * PostgreSQL. `ticket` is undefined only if the ticket row is gone.
 */
export async function completeRingWithJob(
  tx: Tx,
  ring: RingRecord,
  result: Record<string, unknown>,
  now: number,
): Promise<{ completed: boolean; ticket: Ticket | undefined }> {
  const jobKey = ringJobKey(ring.ticketId, ring.seq);
  if (tx.dialect === 'postgres') {
    const row = await one(tx, COMPLETE_RING_PG, [ring.id, now, toJson(result), jobKey, ring.ticketId, ring.branchId, ring.mode]);
    return { completed: Number(row?.ring_completed ?? 0) === 1, ticket: row?.id == null ? undefined : toTicket(row) };
  }
  const completed =
    (await tx.run('UPDATE rings SET completed_at = $2, result = $3 WHERE id = $1 AND completed_at IS NULL', [
      ring.id,
      now,
      toJson(result),
    ])) === 1;
  if (completed) await completeJobByKey(tx, jobKey, now);
  return { completed, ticket: await getTicket(tx, ring.branchId, ring.mode, ring.ticketId) };
}
