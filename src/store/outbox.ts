// Events and jobs: both written in the same transaction as the change that causes them.
import type { Queryable, Tx } from './db.ts';
import { one, toJson } from './db.ts';
import type { Mode } from './tenancy.ts';
import { withTraceContext } from '../telemetry/tracing.ts';

export type EventRecord = { id: string; branchId: string; mode: Mode; type: string; createdAt: number; body: string };

/** The event's INSERT and its parameters ($2 is the branch, $3 the mode), for statements that embed it. */
export const EVENT_INSERT = 'INSERT INTO events (id, branch_id, mode, type, created_at, body) VALUES ($1, $2, $3, $4, $5, $6)';
export const eventValues = (e: EventRecord): unknown[] => [e.id, e.branchId, e.mode, e.type, e.createdAt, e.body];

export async function insertEvent(tx: Tx, e: EventRecord): Promise<void> {
  await tx.run(EVENT_INSERT, eventValues(e));
}

export async function getEventBody(q: Queryable, branchId: string, mode: Mode, id: string): Promise<string | undefined> {
  const r = await one<{ body: string }>(q, 'SELECT body FROM events WHERE id = $1 AND branch_id = $2 AND mode = $3', [id, branchId, mode]);
  return r?.body;
}

export type EventFilter = { types?: string[]; createdAfter?: number; startingAfter?: string; limit: number };

export async function listEventBodies(
  q: Queryable,
  branchId: string,
  mode: Mode,
  f: EventFilter,
): Promise<{ data: string[]; hasMore: boolean }> {
  const where = ['branch_id = $1', 'mode = $2'];
  const values: unknown[] = [branchId, mode];
  if (f.types !== undefined && f.types.length > 0) {
    where.push(
      `type IN (${f.types
        .map((t) => {
          values.push(t);
          return `$${values.length}`;
        })
        .join(', ')})`,
    );
  }
  if (f.createdAfter !== undefined) {
    values.push(f.createdAfter);
    where.push(`created_at > $${values.length}`);
  }
  if (f.startingAfter !== undefined) {
    values.push(f.startingAfter);
    where.push(`id < $${values.length}`);
  }
  values.push(f.limit + 1);
  const rows = await q.query<{ body: string }>(
    `SELECT body FROM events WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${values.length}`,
    values,
  );
  return { data: rows.slice(0, f.limit).map((r) => r.body), hasMore: rows.length > f.limit };
}

export type JobRecord = {
  id: string;
  kind: string;
  key: string;
  payload: unknown;
  runAt: number;
  createdAt: number;
  /** Written already claimed by this worker (a hand-off to the local runner after the commit). */
  lease?: { workerId: string; until: number };
};

/** A job's stored payload: with the trace context of the work that enqueues it, when tracing is on. */
export const jobPayloadJson = (payload: unknown): string | null => toJson(withTraceContext(payload));

/** Enqueues a job unless one with the same key exists: the key is what makes effects happen once. */
export async function enqueueJob(tx: Tx, j: JobRecord): Promise<boolean> {
  const n =
    j.lease === undefined
      ? await tx.run(
          'INSERT INTO jobs (id, kind, key, payload, run_at, attempts, created_at) VALUES ($1, $2, $3, $4, $5, 0, $6) ON CONFLICT (key) DO NOTHING',
          [j.id, j.kind, j.key, jobPayloadJson(j.payload), j.runAt, j.createdAt],
        )
      : await tx.run(
          'INSERT INTO jobs (id, kind, key, payload, run_at, attempts, locked_until, locked_by, created_at) VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8) ON CONFLICT (key) DO NOTHING',
          [j.id, j.kind, j.key, jobPayloadJson(j.payload), j.runAt, j.lease.until, j.lease.workerId, j.createdAt],
        );
  return n === 1;
}

export async function completeJobByKey(tx: Tx, key: string, now: number): Promise<void> {
  await tx.run('UPDATE jobs SET done_at = $2, locked_until = NULL WHERE key = $1 AND done_at IS NULL', [key, now]);
}

export type ClaimedJob = { id: string; kind: string; key: string; payload: string; attempts: number };

/**
 * Claims up to `limit` due jobs for `leaseMs`. On PostgreSQL SKIP LOCKED lets every node claim
 * different rows at once; on SQLite the single writer makes the UPDATE atomic. A node that dies
 * mid-job simply lets its lease expire, and another node claims the job again.
 */
export async function claimJobs(
  db: { write: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T> },
  worker: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<ClaimedJob[]> {
  return db.write(async (tx) => {
    const skip = tx.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const due = await tx.query<{ id: string }>(
      `SELECT id FROM jobs WHERE done_at IS NULL AND run_at <= $1 AND (locked_until IS NULL OR locked_until < $1) ORDER BY run_at LIMIT $2 ${skip}`,
      [now, limit],
    );
    const out: ClaimedJob[] = [];
    for (const { id } of due) {
      const r = await one<ClaimedJob>(
        tx,
        'UPDATE jobs SET locked_until = $2, locked_by = $3, attempts = attempts + 1 WHERE id = $1 RETURNING id, kind, key, payload, attempts',
        [id, now + leaseMs, worker],
      );
      if (r) out.push({ ...r, attempts: Number(r.attempts) });
    }
    return out;
  });
}

/**
 * Due, unfinished jobs by kind, and when the oldest of each became due: one range scan of the
 * jobs_due index (unfinished jobs only), for the metrics at scrape time.
 */
export async function jobBacklog(q: Queryable, now: number): Promise<Array<{ kind: string; due: number; oldestRunAt: number }>> {
  const rows = await q.query<{ kind: string; due: number; oldest: number }>(
    'SELECT kind, COUNT(*) AS due, MIN(run_at) AS oldest FROM jobs WHERE done_at IS NULL AND run_at <= $1 GROUP BY kind',
    [now],
  );
  return rows.map((r) => ({ kind: r.kind, due: Number(r.due), oldestRunAt: Number(r.oldest) }));
}

export async function finishJob(tx: Tx, id: string, now: number): Promise<void> {
  await tx.run('UPDATE jobs SET done_at = $2, locked_until = NULL WHERE id = $1', [id, now]);
}

export async function retryJob(tx: Tx, id: string, runAt: number, error: string): Promise<void> {
  await tx.run('UPDATE jobs SET run_at = $2, locked_until = NULL, last_error = $3 WHERE id = $1', [id, runAt, error.slice(0, 1000)]);
}

export async function deleteOldRows(tx: Tx, now: number): Promise<void> {
  await tx.run('DELETE FROM idempotency_keys WHERE created_at < $1', [now - 24 * 3600_000]);
  await tx.run('DELETE FROM events WHERE created_at < $1', [now - 30 * 24 * 3600_000]);
  await tx.run('DELETE FROM jobs WHERE done_at IS NOT NULL AND done_at < $1', [now - 7 * 24 * 3600_000]);
  // A page's or board's confirmation of a ring only dedupes that ring's retries (minutes); a
  // ticket is open 72 hours at most. A week later the record is dead weight.
  await tx.run('DELETE FROM ring_deliveries WHERE delivered_at < $1', [now - 7 * 24 * 3600_000]);
}
