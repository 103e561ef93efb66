// Tickets, display-number counters and rings. Every query is filtered by branch and mode.
import type { Queryable, Tx } from '../core/db.ts';
import type { RowWrite } from '../core/events.ts';
import { fromJson, one, toJson } from './db.ts';
import type { Mode } from '../core/tenancy.ts';
import { TICKET_STATUSES } from '../domain/ticket-state.ts';
import type { Ticket, TicketStatus } from '../core/ticket.ts';
import { firstIdAt } from '../domain/ids.ts';
import { LIST_LIMIT_MAX } from '../domain/validation.ts';

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
  ['source', 'source'],
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
/** Read with every ticket but never inserted (a new ticket has none): see store/sms-messages.ts. */
const READ_ONLY: Array<[keyof Ticket, string]> = [['smsStatus', 'sms_status']];
const READ = [...COLUMNS, ...READ_ONLY];
export const TICKET_COLUMNS = READ.map(([, c]) => c).join(', ');
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
  for (const [prop, col] of READ) {
    const v = row[col];
    t[prop] = v === null || v === undefined ? null : NUMERIC.has(col) ? Number(v) : v;
  }
  t.metadata = fromJson(row.metadata, null);
  return t as Ticket;
}

/** The ticket as a row to insert (a create describes its rows; the store decides how they travel). */
export function ticketRow(t: Ticket): RowWrite {
  const values: Record<string, unknown> = {};
  for (const [prop, col] of COLUMNS) values[col] = prop === 'metadata' ? toJson(t.metadata) : t[prop];
  return { table: 'tickets', values };
}

/**
 * Takes the next free display number of a queue for a business day. The counter row's lock
 * serialises concurrent creates of that queue. A number still held by an open ticket of an
 * earlier day (a ticket open across midnight) is skipped: the partial unique index would refuse it.
 */
export async function takeNumber(tx: Tx, branchId: string, mode: Mode, queue: string, day: string): Promise<number> {
  for (;;) {
    const row = await one<{ last_number: number }>(
      tx,
      `INSERT INTO queue_counters (branch_id, mode, queue, day, last_number) VALUES ($1, $2, $3, $4, 1)
       ON CONFLICT (branch_id, mode, queue, day) DO UPDATE SET last_number = queue_counters.last_number + 1
       RETURNING last_number`,
      [branchId, mode, queue, day],
    );
    const n = Number(row!.last_number);
    const held = await one(
      tx,
      'SELECT 1 AS held FROM tickets WHERE branch_id = $1 AND mode = $2 AND queue = $3 AND number = $4 AND closed_at IS NULL',
      [branchId, mode, queue, n],
    );
    if (held === undefined) return n;
  }
}

/**
 * The WHERE of a statement that finds one ticket by id for its tenant (and, with `also`, in a
 * given state). The id is the only condition an index can serve: the rest is checked on the row
 * the primary key found, inside `(…) IS TRUE`, which no index matches. Written plainly, the
 * tenant's columns lead every other index of tickets, and on a table not analysed yet (a new
 * deployment's first busy hour) PostgreSQL took `tickets_queue_status` with its queue
 * unconstrained, reading the branch's whole index for each ticket (decision 0054). `$n` numbers.
 */
export const ticketById = (id: number, branch: number, mode: number, also = ''): string =>
  `id = $${id} AND (branch_id = $${branch} AND mode = $${mode}${also === '' ? '' : ` AND ${also}`}) IS TRUE`;

const GET_TICKET = `SELECT ${TICKET_COLUMNS} FROM tickets WHERE ${ticketById(1, 2, 3)}`;

export async function getTicket(q: Queryable, branchId: string, mode: Mode, id: string): Promise<Ticket | undefined> {
  const r = await one(q, GET_TICKET, [id, branchId, mode]);
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
    `UPDATE tickets SET ${sets.join(', ')} WHERE ${ticketById(1, 2, 3, `status IN (${statusList.join(', ')})`)} RETURNING ${TICKET_COLUMNS}`,
    values,
  );
  return r && toTicket(r);
}

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

/** Whether another open ticket of the queue holds `number` now (a reopen must not give it twice). */
export async function displayNumberHeld(q: Queryable, t: Pick<Ticket, 'id' | 'branchId' | 'mode' | 'queue' | 'number'>): Promise<boolean> {
  return (
    (await one(
      q,
      'SELECT 1 AS held FROM tickets WHERE branch_id = $1 AND mode = $2 AND queue = $3 AND number = $4 AND closed_at IS NULL AND id <> $5',
      [t.branchId, t.mode, t.queue, t.number, t.id],
    )) !== undefined
  );
}
