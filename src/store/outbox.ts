// Events and jobs: both written in the same transaction as the change that causes them.
import type { Queryable, Tx } from '../core/db.ts';
import { one, toJson } from './db.ts';
import type { Mode } from '../core/tenancy.ts';
import { JOB_LANES, type ClaimedJob, type JobLane } from '../core/jobs.ts';
import type { JobKind } from '../core/job-registry.ts';
import { newId } from '../domain/ids.ts';
import type { EventRecord } from '../core/events.ts';
import type { RowWrite } from '../core/events.ts';
import { withTraceContext } from '../telemetry/tracing.ts';

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
  /** The lane it runs in, and whose work it is (decision 0048); 'ring' and nobody's when unset. */
  lane?: JobLane;
  accountId?: string | null;
  endpointId?: string | null;
};

/** Whose work a new job is: the account, and for a delivery its endpoint (the fair shares' keys). */
export type JobFor = { accountId: string; endpointId?: string };

/** A job of `kind`, for enqueueJob or a statement that inserts jobs; `key` makes it happen once. */
export function newJob<P>(kind: JobKind<P>, key: string, payload: P, runAt: number, now: number, owner?: JobFor): JobRecord {
  return {
    id: newId('job', now),
    kind: kind.kind,
    key,
    payload,
    runAt,
    createdAt: now,
    lane: kind.lane,
    accountId: owner?.accountId ?? null,
    endpointId: owner?.endpointId ?? null,
  };
}

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
    lane: j.lane ?? 'ring',
    account_id: j.accountId ?? null,
    endpoint_id: j.endpointId ?? null,
  },
});

/** Enqueues a job unless one with the same key exists: the key is what makes effects happen once. */
export async function enqueueJob(tx: Tx, j: JobRecord): Promise<boolean> {
  // The columns and values of jobRow, so the two ways a job is written cannot drift apart; its
  // column order is fixed, so the statement's text (and its prepared name) is always the same.
  const { values } = jobRow(j);
  const columns = Object.keys(values);
  const n = await tx.run(
    `INSERT INTO jobs (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT (key) DO NOTHING`,
    Object.values(values),
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
 * How much of a lane one owner may take on this node (decisions 0048, 0088): an account that already
 * runs jobs here may hold `perAccount` slots, one that runs nothing here `perNewAccount`; a webhook
 * endpoint `perEndpoint` while it answers and `failingEndpoint` while it is failing; less what each
 * already runs here (`busy`, by account and by endpoint id).
 */
export type FairShares = {
  perAccount: number;
  perNewAccount?: number;
  perEndpoint: number;
  failingEndpoint?: number;
  busy: { accounts: Record<string, number>; endpoints: Record<string, number> };
};

/** While its endpoint is failing (`failing_since` set), a node runs one delivery at a time. */
export const FAILING_ENDPOINT_SLOTS = 1;

const UNCAPPED: FairShares = { perAccount: 1_000_000, perEndpoint: 1_000_000, busy: { accounts: {}, endpoints: {} } };

/**
 * Claims up to `limit` due jobs of one lane for `leaseMs`, in one statement, giving no owner more
 * than its share. The candidates are the lane's `limit` oldest due jobs whose account and endpoint
 * still have room (an owner at its cap is skipped in the index scan, so its backlog costs a filter
 * per row, not a slot); among them a window counts each owner's jobs so that one claim cannot
 * overfill an owner either. Candidates are locked as they are found (SKIP LOCKED must act during
 * the scan for concurrent claimers to find the next rows), so they are no more than `limit`: a
 * claim that left some to their owner's cap returns fewer, and the runner claims again. On PostgreSQL SKIP LOCKED lets every node claim different rows at once; on SQLite
 * the single writer makes the UPDATE atomic. A node that dies mid-job simply lets its lease
 * expire, and another node claims the job again.
 */
const busyOf = (dialect: 'postgres' | 'sqlite', param: string, column: string): string =>
  dialect === 'postgres'
    ? `COALESCE((${param}::jsonb ->> j.${column})::int, 0)`
    : `COALESCE(json_extract(${param}, '$."' || j.${column} || '"'), 0)`;

const claimSql = (dialect: 'postgres' | 'sqlite'): string => {
  const accountBusy = busyOf(dialect, '$6', 'account_id');
  // CAST rather than ::int: the parameters' type must be known inside CASE on PostgreSQL, and SQLite reads CAST too.
  const accountRoom = `(CASE WHEN ${accountBusy} > 0 THEN CAST($8 AS INTEGER) ELSE CAST($10 AS INTEGER) END) - ${accountBusy}`;
  const endpointRoom = `(CASE WHEN w.failing_since IS NULL THEN CAST($9 AS INTEGER) ELSE CAST($11 AS INTEGER) END) - ${busyOf(dialect, '$7', 'endpoint_id')}`;
  return `WITH cand AS (
    SELECT j.id, j.run_at, j.account_id, j.endpoint_id, ${accountRoom} AS a_room, ${endpointRoom} AS e_room
    FROM jobs j LEFT JOIN webhook_endpoints w ON w.id = j.endpoint_id
    WHERE j.lane = $5 AND j.done_at IS NULL AND j.run_at <= $1 AND (j.locked_until IS NULL OR j.locked_until < $1)
      AND (j.account_id IS NULL OR ${accountRoom} > 0) AND (j.endpoint_id IS NULL OR ${endpointRoom} > 0)
    ORDER BY j.run_at LIMIT $4 ${dialect === 'postgres' ? 'FOR UPDATE OF j SKIP LOCKED' : ''}
  ), by_endpoint AS (
    SELECT id, run_at, account_id, endpoint_id, a_room, e_room, ROW_NUMBER() OVER (PARTITION BY endpoint_id ORDER BY run_at, id) AS n
    FROM cand
  ), by_account AS (
    SELECT id, run_at, account_id, a_room, ROW_NUMBER() OVER (PARTITION BY account_id ORDER BY run_at, id) AS n
    FROM by_endpoint WHERE endpoint_id IS NULL OR n <= e_room
  )
  UPDATE jobs SET locked_until = $2, locked_by = $3, attempts = attempts + 1
  WHERE id IN (SELECT id FROM by_account WHERE account_id IS NULL OR n <= a_room ORDER BY run_at LIMIT $4)
  RETURNING id, kind, key, payload, attempts, run_at, lane, account_id, endpoint_id`;
};
const CLAIM = { postgres: claimSql('postgres'), sqlite: claimSql('sqlite') };

type ClaimRow = {
  id: string;
  kind: string;
  key: string;
  payload: string;
  attempts: number;
  run_at: number;
  lane: string;
  account_id: string | null;
  endpoint_id: string | null;
};

/** In the caller's transaction: a runner claims every lane in one. */
export async function claimLaneJobs(
  tx: Tx,
  worker: string,
  now: number,
  leaseMs: number,
  limit: number,
  lane: JobLane = 'ring',
  shares: FairShares = UNCAPPED,
): Promise<ClaimedJob[]> {
  const params = [
    now,
    now + leaseMs,
    worker,
    limit,
    lane,
    JSON.stringify(shares.busy.accounts),
    JSON.stringify(shares.busy.endpoints),
    shares.perAccount,
    shares.perEndpoint,
    shares.perNewAccount ?? shares.perAccount,
    shares.failingEndpoint ?? FAILING_ENDPOINT_SLOTS,
  ];
  const rows = await tx.query<ClaimRow>(CLAIM[tx.dialect], params);
  // RETURNING keeps no order: the oldest due first, as they were chosen.
  rows.sort((a, b) => Number(a.run_at) - Number(b.run_at));
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    key: r.key,
    payload: r.payload,
    attempts: Number(r.attempts),
    lane: r.lane === 'webhook' ? 'webhook' : 'ring',
    accountId: r.account_id,
    endpointId: r.endpoint_id,
  }));
}

/**
 * Gives back jobs a transaction leased to this worker that it will not run now (their owner
 * already holds its share here): due again at once for any worker's claim, the attempt uncounted.
 */
export async function releaseJobs(tx: Tx, worker: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const list = ids.map((_, i) => `$${i + 2}`).join(', ');
  await tx.run(
    `UPDATE jobs SET locked_until = NULL, locked_by = NULL, attempts = attempts - 1 WHERE id IN (${list}) AND locked_by = $1 AND done_at IS NULL`,
    [worker, ...ids],
  );
}

/**
 * Extends the leases of jobs this worker is still running to `until` (decision 0048: a lease
 * shorter than a job would otherwise let another worker claim it mid-run). Only rows still leased
 * to this worker and unfinished: a job already taken over stays with its new worker.
 */
export async function renewJobLeases(tx: Tx, worker: string, ids: readonly string[], until: number): Promise<number> {
  if (ids.length === 0) return 0;
  const list = ids.map((_, i) => `$${i + 3}`).join(', ');
  return tx.run(`UPDATE jobs SET locked_until = $2 WHERE id IN (${list}) AND locked_by = $1 AND done_at IS NULL`, [worker, until, ...ids]);
}

const LANES_SQL = `(${JOB_LANES.map((l) => `'${l}'`).join(', ')})`;

/**
 * Due, unfinished jobs by kind, and when the oldest of each became due: one range scan of the
 * jobs_due index (unfinished jobs only), for the metrics at scrape time.
 */
export async function jobBacklog(q: Queryable, now: number): Promise<Array<{ kind: string; due: number; oldestRunAt: number }>> {
  const rows = await q.query<{ kind: string; due: number; oldest: number }>(
    // Every lane named, so the scan is one range of jobs_due (lane, run_at) per lane.
    `SELECT kind, COUNT(*) AS due, MIN(run_at) AS oldest FROM jobs WHERE lane IN ${LANES_SQL} AND done_at IS NULL AND run_at <= $1 GROUP BY kind`,
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
