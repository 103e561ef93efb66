// Events and jobs: both written in the same transaction as the change that causes them.
import type { Queryable, Tx } from '../core/db.ts';
import { one, toJson } from './db.ts';
import type { Mode } from '../core/tenancy.ts';
import type { ClaimedJob } from '../core/jobs.ts';
import type { EventRecord } from '../core/events.ts';
import type { RowWrite } from './rows.ts';
import { withTraceContext } from '../telemetry/tracing.ts';

export type { EventRecord };

/** The event's INSERT and its parameters ($2 is the branch, $3 the mode), for statements that embed it. */
export const EVENT_INSERT = 'INSERT INTO events (id, branch_id, mode, type, created_at, body) VALUES ($1, $2, $3, $4, $5, $6)';
export const eventValues = (e: EventRecord): unknown[] => [e.id, e.branchId, e.mode, e.type, e.createdAt, e.body];

/** The same row described, for a writer that sends it with others (a create's commit). */
export const eventRow = (e: EventRecord): RowWrite => ({
  table: 'events',
  values: { id: e.id, branch_id: e.branchId, mode: e.mode, type: e.type, created_at: e.createdAt, body: e.body },
});

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

/** A job as a row to insert, for a new effect whose key nothing else can hold yet (a new event's delivery). */
export const jobRow = (j: JobRecord): RowWrite => ({
  table: 'jobs',
  values: {
    id: j.id,
    kind: j.kind,
    key: j.key,
    payload: jobPayloadJson(j.payload),
    run_at: j.runAt,
    attempts: j.lease === undefined ? 0 : 1,
    locked_until: j.lease?.until ?? null,
    locked_by: j.lease?.workerId ?? null,
    created_at: j.createdAt,
  },
});

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

/** Brings the pending jobs of these keys forward to `runAt` (a job already due keeps its time). */
export async function hastenJobs(tx: Tx, keys: readonly string[], runAt: number): Promise<number> {
  if (keys.length === 0) return 0;
  const list = keys.map((_, i) => `$${i + 2}`).join(', ');
  return tx.run(`UPDATE jobs SET run_at = $1 WHERE key IN (${list}) AND done_at IS NULL AND run_at > $1`, [runAt, ...keys]);
}

/**
 * Claims up to `limit` due jobs for `leaseMs`, in one statement. On PostgreSQL SKIP LOCKED lets
 * every node claim different rows at once; on SQLite the single writer makes the UPDATE atomic. A
 * node that dies mid-job simply lets its lease expire, and another node claims the job again.
 */
const claimSql = (lock: string): string => `UPDATE jobs SET locked_until = $2, locked_by = $3, attempts = attempts + 1
  WHERE id IN (SELECT id FROM jobs WHERE done_at IS NULL AND run_at <= $1 AND (locked_until IS NULL OR locked_until < $1) ORDER BY run_at LIMIT $4 ${lock})
  RETURNING id, kind, key, payload, attempts, run_at`;
const CLAIM = { postgres: claimSql('FOR UPDATE SKIP LOCKED'), sqlite: claimSql('') };

export async function claimJobs(
  db: { write: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T> },
  worker: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<ClaimedJob[]> {
  const rows = await db.write((tx) => tx.query<ClaimedJob & { run_at: number }>(CLAIM[tx.dialect], [now, now + leaseMs, worker, limit]));
  // RETURNING keeps no order: the oldest due first, as they were chosen.
  rows.sort((a, b) => Number(a.run_at) - Number(b.run_at));
  return rows.map((r) => ({ id: r.id, kind: r.kind, key: r.key, payload: r.payload, attempts: Number(r.attempts) }));
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
