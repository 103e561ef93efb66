// The statements of a ring's life (src/ring/): the ticket's change and its ring count in one
// UPDATE, the ring row with its jobs, and the ring's completion. Each does in one statement what
// used to take several, because on PostgreSQL every statement is a round trip, and ready pays them
// between the POS's request and the page's ring.
import type { Queryable, Tx } from '../core/db.ts';
import { fromJson, one, toJson } from './db.ts';
import { completeJobByKey, jobPayloadJson, type JobRecord } from './outbox.ts';
import type { Mode, Plan } from '../core/tenancy.ts';
import { getTicket, ticketById, toTicket, TICKET_COLUMNS } from './tickets.ts';
import type { Ticket } from '../core/ticket.ts';
import type { TicketStatus } from '../core/ticket.ts';
import { withDefaults } from '../domain/branch-settings.ts';
import type { BranchSettings } from '../core/branch-settings.ts';
import { EVERY_CHANNEL } from '../domain/channel-choice.ts';
import type { ChannelChoice } from '../core/ring.ts';
import type { RingBranch } from '../core/ring.ts';
import { fanOutTargetsFromJson, fanOutTargetsJson, rememberFanOutTargets } from './webhook-endpoints.ts';

/**
 * One ring of a ticket. `channels`: the channels it was started with, so that whoever finishes it
 * (its job, another node) uses the same ones. `result` is set once, when it completes.
 */
export type RingRecord = {
  id: string;
  ticketId: string;
  branchId: string;
  mode: Mode;
  seq: number;
  reason: string;
  channels: ChannelChoice;
  createdAt: number;
  completedAt: number | null;
  result: Record<string, unknown> | null;
};

type RingRow = {
  id: string;
  ticket_id: string;
  branch_id: string;
  mode: Mode;
  seq: number;
  reason: string;
  channels: string | null;
  created_at: number;
  completed_at: number | null;
  result: string | null;
};
const toRing = (r: RingRow): RingRecord => ({
  id: r.id,
  ticketId: r.ticket_id,
  branchId: r.branch_id,
  mode: r.mode,
  seq: Number(r.seq),
  reason: r.reason,
  // Rings started before the column existed used every channel.
  channels: fromJson(r.channels, EVERY_CHANNEL),
  createdAt: Number(r.created_at),
  completedAt: r.completed_at === null ? null : Number(r.completed_at),
  result: fromJson(r.result, null),
});

export async function getRing(q: Queryable, id: string): Promise<RingRecord | undefined> {
  const r = await one<RingRow>(
    q,
    'SELECT id, ticket_id, branch_id, mode, seq, reason, channels, created_at, completed_at, result FROM rings WHERE id = $1',
    [id],
  );
  return r && toRing(r);
}

export type RingingTicket = { ticket: Ticket; branch: RingBranch; pushSubscriptions: number };

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
  WHERE ${ticketById(1, 2, 3, 'status = $6 AND (CAST($8 AS BIGINT) IS NULL OR last_ring_at IS NULL OR last_ring_at <= CAST($8 AS BIGINT))')}
  RETURNING ${TICKET_COLUMNS},
    (SELECT b.name FROM branches b WHERE b.id = tickets.branch_id) AS ring_branch_name,
    (SELECT b.settings FROM branches b WHERE b.id = tickets.branch_id) AS ring_branch_settings,
    (SELECT COUNT(*) FROM push_subscriptions p WHERE p.ticket_id = tickets.id AND p.branch_id = tickets.branch_id AND p.mode = tickets.mode) AS ring_push_subscriptions`;
// On PostgreSQL the UPDATE also reads the webhook endpoints the transaction's events fan out to,
// so that those events' INSERTs wait for nothing and go with the COMMIT (decision 0054).
const START_RING_PG = `${START_RING},
    ${fanOutTargetsJson('tickets.branch_id', 'tickets.mode')} AS ring_endpoints`;

export async function startTicketRing(tx: Tx, s: RingStart): Promise<RingingTicket | undefined> {
  const row = await one(tx, tx.dialect === 'postgres' ? START_RING_PG : START_RING, [
    s.id,
    s.branchId,
    s.mode,
    s.to,
    s.now,
    s.from,
    s.readyAt ?? null,
    s.notRungAfter ?? null,
  ]);
  if (row === undefined) return undefined;
  if (tx.dialect === 'postgres') rememberFanOutTargets(tx, s.branchId, s.mode, fanOutTargetsFromJson(row.ring_endpoints));
  return {
    ticket: toTicket(row),
    branch: { name: String(row.ring_branch_name ?? ''), settings: withDefaults(fromJson(row.ring_branch_settings, {})) },
    pushSubscriptions: Number(row.ring_push_subscriptions ?? 0),
  };
}

/** The branch's plan and settings, for a ring asked about again (the first attempt is handed them). */
export async function readRingBranch(q: Queryable, branchId: string): Promise<{ plan: Plan; settings: BranchSettings } | undefined> {
  const row = await one<{ plan: Plan; settings: string }>(
    q,
    'SELECT a.plan AS plan, b.settings AS settings FROM branches b JOIN accounts a ON a.id = b.account_id WHERE b.id = $1',
    [branchId],
  );
  return row && { plan: row.plan, settings: withDefaults(fromJson(row.settings, {})) };
}

const RING_INSERT =
  'INSERT INTO rings (id, ticket_id, branch_id, mode, seq, reason, channels, created_at, completed_at, result) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';

/**
 * Inserts the ring and its jobs (its outbox job, a first reminder); a job whose key exists is
 * left alone. One statement on PostgreSQL, two on SQLite (no data-modifying WITH there, and
 * statements cost no round trip).
 */
const jobInserts = new Map<string, string>();

const JOB_PARAMS = 9;

/** INSERT of `count` jobs whose parameters start after `from`, one text per shape. */
function jobInsert(count: number, from: number): string {
  const shape = `${count}:${from}`;
  let sql = jobInserts.get(shape);
  if (sql === undefined) {
    const rows = Array.from({ length: count }, (_, i) => {
      const p = (k: number): string => `$${from + i * JOB_PARAMS + k}`;
      return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, 0, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)})`;
    });
    const insert = `INSERT INTO jobs (id, kind, key, payload, run_at, attempts, created_at, lane, account_id, endpoint_id) VALUES ${rows.join(', ')} ON CONFLICT (key) DO NOTHING`;
    sql = from === 0 ? insert : `WITH ring AS (${RING_INSERT}) ${insert}`;
    jobInserts.set(shape, sql);
  }
  return sql;
}

/** The ring and its jobs: nothing in the transaction reads them back, so they go with its COMMIT. */
export async function insertRingWithJobs(tx: Tx, r: RingRecord, jobs: readonly JobRecord[]): Promise<void> {
  const ringValues = [
    r.id,
    r.ticketId,
    r.branchId,
    r.mode,
    r.seq,
    r.reason,
    toJson(r.channels),
    r.createdAt,
    r.completedAt,
    toJson(r.result),
  ];
  const jobValues = jobs.flatMap((j) => [
    j.id,
    j.kind,
    j.key,
    jobPayloadJson(j.payload),
    j.runAt,
    j.createdAt,
    j.lane ?? 'ring',
    j.accountId ?? null,
    j.endpointId ?? null,
  ]);
  if (jobs.length > 0 && tx.dialect === 'postgres') {
    await tx.later(jobInsert(jobs.length, ringValues.length), [...ringValues, ...jobValues]);
    return;
  }
  await tx.later(RING_INSERT, ringValues);
  if (jobs.length > 0) await tx.later(jobInsert(jobs.length, 0), jobValues);
}

const COMPLETE_RING_PG = `WITH r AS (UPDATE rings SET completed_at = $2, result = $3 WHERE id = $1 AND completed_at IS NULL RETURNING id),
       j AS (UPDATE jobs SET done_at = $2, locked_until = NULL WHERE key = $4 AND done_at IS NULL AND EXISTS (SELECT 1 FROM r))
  SELECT (SELECT COUNT(*) FROM r) AS ring_completed, ${fanOutTargetsJson('$6', '$7')} AS ring_endpoints, t.*
  FROM (SELECT 1 AS one) o LEFT JOIN (SELECT ${TICKET_COLUMNS} FROM tickets WHERE ${ticketById(5, 6, 7)}) t ON true`;

/**
 * Records a ring's result once (false: another attempt already did), marks its outbox job (key
 * `jobKey`) done when it did, and reads the ticket for the answer and the ticket.rung event: one
 * statement on PostgreSQL. `ticket` is undefined only if the ticket row is gone.
 */
export async function completeRing(
  tx: Tx,
  ring: RingRecord,
  result: Record<string, unknown>,
  now: number,
  jobKey: string,
): Promise<{ completed: boolean; ticket: Ticket | undefined }> {
  if (tx.dialect === 'postgres') {
    const row = await one(tx, COMPLETE_RING_PG, [ring.id, now, toJson(result), jobKey, ring.ticketId, ring.branchId, ring.mode]);
    // The ticket.rung event this completion records goes with the COMMIT (decision 0054).
    rememberFanOutTargets(tx, ring.branchId, ring.mode, fanOutTargetsFromJson(row?.ring_endpoints));
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
