// Tickets, display-number counters and rings. Every query is filtered by branch and mode.
import type { Queryable, Tx } from './db.ts';
import { fromJson, one, toJson } from './db.ts';
import type { Mode } from './tenancy.ts';
import { TICKET_STATUSES, type TicketStatus } from '../domain/ticket-state.ts';
import { firstIdAt } from '../domain/ids.ts';

export type Ticket = {
  id: string;
  branchId: string;
  mode: Mode;
  queue: string;
  number: number;
  displayNumber: string;
  status: TicketStatus;
  token: string;
  externalRef: string | null;
  customerPhone: string | null;
  metadata: Record<string, string> | null;
  createdAt: number;
  readyAt: number | null;
  collectedAt: number | null;
  cancelledAt: number | null;
  expiredAt: number | null;
  closedAt: number | null;
  cancelReason: string | null;
  viewedAt: number | null;
  notifications: 'none' | 'push' | 'sms';
  acknowledgedAt: number | null;
  snoozedUntil: number | null;
  rings: number;
  lastRingAt: number | null;
  expiresAt: number;
  updatedAt: number;
};

const COLUMNS: Array<[keyof Ticket, string]> = [
  ['id', 'id'],
  ['branchId', 'branch_id'],
  ['mode', 'mode'],
  ['queue', 'queue'],
  ['number', 'number'],
  ['displayNumber', 'display_number'],
  ['status', 'status'],
  ['token', 'token'],
  ['externalRef', 'external_ref'],
  ['customerPhone', 'customer_phone'],
  ['metadata', 'metadata'],
  ['createdAt', 'created_at'],
  ['readyAt', 'ready_at'],
  ['collectedAt', 'collected_at'],
  ['cancelledAt', 'cancelled_at'],
  ['expiredAt', 'expired_at'],
  ['closedAt', 'closed_at'],
  ['cancelReason', 'cancel_reason'],
  ['viewedAt', 'viewed_at'],
  ['notifications', 'notifications'],
  ['acknowledgedAt', 'acknowledged_at'],
  ['snoozedUntil', 'snoozed_until'],
  ['rings', 'rings'],
  ['lastRingAt', 'last_ring_at'],
  ['expiresAt', 'expires_at'],
  ['updatedAt', 'updated_at'],
];
export const TICKET_COLUMNS = COLUMNS.map(([, c]) => c).join(', ');
const NUMERIC = new Set([
  'number',
  'created_at',
  'ready_at',
  'collected_at',
  'cancelled_at',
  'expired_at',
  'closed_at',
  'viewed_at',
  'acknowledged_at',
  'snoozed_until',
  'rings',
  'last_ring_at',
  'expires_at',
  'updated_at',
]);

export function toTicket(row: Record<string, unknown>): Ticket {
  const t: Record<string, unknown> = {};
  for (const [prop, col] of COLUMNS) {
    const v = row[col];
    t[prop] = v === null || v === undefined ? null : NUMERIC.has(col) ? Number(v) : v;
  }
  t.metadata = fromJson(row.metadata, null);
  return t as Ticket;
}

const UNNUMBERED = COLUMNS.filter(([prop]) => prop !== 'number' && prop !== 'displayNumber');
/** Every ticket column but number and display_number, which the statement that numbers it fills. */
export const UNNUMBERED_COLUMNS = UNNUMBERED.map(([, c]) => c).join(', ');
/** The SQL type of each of UNNUMBERED_COLUMNS, for statements that take them as arrays. */
export const UNNUMBERED_TYPES: readonly string[] = UNNUMBERED.map(([, c]) =>
  c === 'rings' ? 'integer' : NUMERIC.has(c) ? 'bigint' : 'text',
);
/** Values for UNNUMBERED_COLUMNS, in that order. */
export function unnumberedValues(t: Ticket): unknown[] {
  return UNNUMBERED.map(([prop]) => (prop === 'metadata' ? toJson(t.metadata) : t[prop]));
}

/** Returns false, writing nothing, when an open ticket of the queue already holds the number. */
export async function insertTicket(tx: Tx, t: Ticket): Promise<boolean> {
  const values = COLUMNS.map(([prop]) => (prop === 'metadata' ? toJson(t.metadata) : t[prop]));
  const n = await tx.run(
    `INSERT INTO tickets (${TICKET_COLUMNS}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
     ON CONFLICT (branch_id, mode, queue, number) WHERE closed_at IS NULL DO NOTHING`,
    values,
  );
  return n === 1;
}

/**
 * Numbers `t` with the next display number of its queue for `day` and inserts it, taking further
 * numbers while open tickets of an earlier day hold them (see nextNumber). On PostgreSQL the
 * first try is one statement: the counter row stays locked from its increment to COMMIT, and
 * every round trip in between is time no other create of the queue can use.
 */
export async function insertTicketNumbered(tx: Tx, t: Ticket, day: string): Promise<void> {
  const numbered = (n: number): void => {
    t.number = n;
    t.displayNumber = `${t.queue}-${n}`;
  };
  if (tx.dialect === 'postgres') {
    const values = unnumberedValues(t);
    const n = values.length;
    const row = await one<{ number: number }>(
      tx,
      `WITH c AS (
         INSERT INTO queue_counters (branch_id, mode, queue, day, last_number) VALUES ($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, 1)
         ON CONFLICT (branch_id, mode, queue, day) DO UPDATE SET last_number = queue_counters.last_number + 1
         RETURNING last_number
       )
       INSERT INTO tickets (number, display_number, ${UNNUMBERED_COLUMNS})
       SELECT c.last_number, $${n + 3}::text || '-' || c.last_number::text, ${values.map((_, i) => `$${i + 1}`).join(', ')} FROM c
       ON CONFLICT (branch_id, mode, queue, number) WHERE closed_at IS NULL DO NOTHING
       RETURNING number`,
      [...values, t.branchId, t.mode, t.queue, day],
    );
    if (row !== undefined) return numbered(Number(row.number));
    // The number was held: the counter moved on anyway, and the loop below takes the next one.
  }
  do numbered(await nextNumber(tx, t.branchId, t.mode, t.queue, day));
  while (!(await insertTicket(tx, t)));
}

/**
 * Takes the next display number of a queue for a business day. The counter row's lock
 * serialises concurrent creates of that queue. A number still held by an open ticket of an
 * earlier day (a ticket open across midnight) is skipped by the caller: insertTicket refuses it
 * through the partial unique index, and the caller takes the next one.
 */
export async function nextNumber(tx: Tx, branchId: string, mode: Mode, queue: string, day: string): Promise<number> {
  const row = await one<{ last_number: number }>(
    tx,
    `INSERT INTO queue_counters (branch_id, mode, queue, day, last_number) VALUES ($1, $2, $3, $4, 1)
     ON CONFLICT (branch_id, mode, queue, day) DO UPDATE SET last_number = queue_counters.last_number + 1
     RETURNING last_number`,
    [branchId, mode, queue, day],
  );
  return Number(row!.last_number);
}

export async function getTicket(q: Queryable, branchId: string, mode: Mode, id: string): Promise<Ticket | undefined> {
  const r = await one(q, `SELECT ${TICKET_COLUMNS} FROM tickets WHERE id = $1 AND branch_id = $2 AND mode = $3`, [id, branchId, mode]);
  return r && toTicket(r);
}

export async function getTicketByToken(q: Queryable, token: string): Promise<Ticket | undefined> {
  const r = await one(q, `SELECT ${TICKET_COLUMNS} FROM tickets WHERE token = $1`, [token]);
  return r && toTicket(r);
}

export type TicketChange = Partial<Omit<Ticket, 'id' | 'branchId' | 'mode' | 'token'>>;

/**
 * Applies `change` only if the ticket is still in one of `from` states: the state check and the
 * write are one statement, so two concurrent transitions cannot both succeed.
 */
export async function transitionTicket(
  tx: Tx,
  branchId: string,
  mode: Mode,
  id: string,
  from: readonly TicketStatus[],
  change: TicketChange,
): Promise<Ticket | undefined> {
  const sets: string[] = [];
  const values: unknown[] = [id, branchId, mode];
  for (const [prop, col] of COLUMNS) {
    if (!(prop in change)) continue;
    const v = change[prop as keyof TicketChange];
    values.push(prop === 'metadata' ? toJson(v) : v);
    sets.push(`${col} = $${values.length}`);
  }
  const statusList = from.map((s) => {
    values.push(s);
    return `$${values.length}`;
  });
  const r = await one(
    tx,
    `UPDATE tickets SET ${sets.join(', ')} WHERE id = $1 AND branch_id = $2 AND mode = $3 AND status IN (${statusList.join(', ')}) RETURNING ${TICKET_COLUMNS}`,
    values,
  );
  return r && toTicket(r);
}

/** The largest page of a list. */
export const LIST_LIMIT_MAX = 100;

export type TicketFilter = {
  queue?: string;
  statuses?: TicketStatus[];
  externalRef?: string;
  createdAfter?: number;
  createdBefore?: number;
  startingAfter?: string;
  limit: number;
};

/**
 * Newest first, keyset-paginated on the time-sortable id. Each page reads about `limit` rows of
 * one index whatever the branch's history (docs/decisions/0021-lists-bounded-by-index.md): every
 * equality filter is a leading column of the index it reads and `id` the next one, the created
 * range is a range of ids (an id starts with its created_at), and several statuses, or a queue
 * without a status, are read as one index range per status merged newest first.
 */
export async function listTickets(
  q: Queryable,
  branchId: string,
  mode: Mode,
  f: TicketFilter,
): Promise<{ data: Ticket[]; hasMore: boolean }> {
  const values: unknown[] = [branchId, mode];
  const param = (v: unknown): string => {
    values.push(v);
    return `$${values.length}`;
  };
  const where = ['branch_id = $1', 'mode = $2'];
  if (f.createdAfter !== undefined) where.push(`id >= ${param(firstIdAt('ticket', f.createdAfter + 1))}`);
  // One upper bound, the lower of the two: given both, SQLite bounds its range by either and
  // tests the other on every row in between.
  const upTo = f.createdBefore === undefined ? undefined : firstIdAt('ticket', f.createdBefore);
  const before = f.startingAfter === undefined || (upTo !== undefined && upTo < f.startingAfter) ? upTo : f.startingAfter;
  if (before !== undefined) where.push(`id < ${param(before)}`);
  // Statuses are written into the statement, from TICKET_STATUSES itself: PostgreSQL's generic
  // plan for a prepared statement then still knows how rare 'created' is, where a parameter left
  // it walking the primary key past the whole history in search of one.
  const statuses = f.statuses === undefined || f.statuses.length === 0 ? undefined : TICKET_STATUSES.filter((s) => f.statuses!.includes(s));
  // Each part of the union reads one status, from (branch_id, mode, [queue,] status, id), which
  // hands it its rows newest first. An external_ref matches a handful of tickets: its own index
  // bounds the read, and the other filters are tested on those few rows.
  let parts: string[][] = [[]];
  if (f.externalRef !== undefined) {
    where.push(`external_ref = ${param(f.externalRef)}`);
    if (f.queue !== undefined) where.push(`queue = ${param(f.queue)}`);
    if (statuses !== undefined) where.push(`status IN (${statuses.map((s) => `'${s}'`).join(', ')})`);
  } else {
    if (f.queue !== undefined) where.push(`queue = ${param(f.queue)}`);
    const split = statuses ?? (f.queue !== undefined ? TICKET_STATUSES : undefined);
    if (split !== undefined) parts = split.map((s) => [`status = '${s}'`]);
  }
  const newest = `ORDER BY id DESC LIMIT ${param(f.limit + 1)}`;
  const select = (also: string[]): string => `SELECT ${TICKET_COLUMNS} FROM tickets WHERE ${[...where, ...also].join(' AND ')}`;
  // SQLite merges the ordered parts of a UNION ALL lazily and allows no ORDER BY or LIMIT in
  // them. PostgreSQL merges them (Merge Append) only when each carries its own; without, its
  // generic plan reads every row of the statuses. Their LIMIT is the largest page, written in:
  // the page's own LIMIT stops the reading once the page is full anyway, and a known LIMIT lets
  // the generic plan of the prepared statement cost what it will read. (With a parameter it
  // assumes a tenth of the table, so a large store planned every request afresh, 0.1 to 0.2 ms
  // of CPU each, where a small one used the generic plan.) A single part is written the same way.
  const sql =
    q.dialect === 'postgres'
      ? `SELECT * FROM (${parts.map((p) => `(${select(p)} ORDER BY id DESC LIMIT ${Math.max(f.limit, LIST_LIMIT_MAX) + 1})`).join(' UNION ALL ')}) AS page ${newest}`
      : `${parts.map(select).join(' UNION ALL ')} ${newest}`;
  const rows = await q.query(sql, values);
  const data = rows.slice(0, f.limit).map(toTicket);
  return { data, hasMore: rows.length > f.limit };
}

export type RingRecord = {
  id: string;
  ticketId: string;
  branchId: string;
  mode: Mode;
  seq: number;
  reason: string;
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
  createdAt: Number(r.created_at),
  completedAt: r.completed_at === null ? null : Number(r.completed_at),
  result: fromJson(r.result, null),
});

export async function getRing(q: Queryable, id: string): Promise<RingRecord | undefined> {
  const r = await one<RingRow>(
    q,
    'SELECT id, ticket_id, branch_id, mode, seq, reason, created_at, completed_at, result FROM rings WHERE id = $1',
    [id],
  );
  return r && toRing(r);
}
