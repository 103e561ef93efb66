// The read side of owner insights (decision 0025). A period's figures are the sums of its rollup
// rows, one range of the primary key (branch, mode, day…), so a read costs what the period holds
// and never what the branch's history does. Tickets are read only where the figure is about
// tickets as they are now (those still open, a bounded set) or the owner asked for the tickets
// themselves (the CSV export, a range of ids, page by page).
import type { Queryable } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';
import { channelSumOf, MAX_COLUMNS, SUM_COLUMNS } from '../domain/insight-figures.ts';
import { firstIdAt } from '../domain/ids.ts';

export type RollupRow = Record<string, unknown>;

/** How a read groups the rows of its period: not at all, or by local day, hour, or weekday and hour. */
export type Grouping = 'period' | 'day' | 'hour' | 'weekday_hour';
const GROUP_BY: Record<Grouping, string> = { period: '', day: 'day', hour: 'hour', weekday_hour: 'weekday, hour' };

export type RollupRange = {
  from: string;
  to: string;
  queue?: string;
  /** Only up to this local day and hour, included (a comparison stopped where the period is now). */
  through?: { day: string; hour: number } | null;
};

const AGGREGATES = [...SUM_COLUMNS.map((c) => `SUM(${c}) AS ${c}`), ...MAX_COLUMNS.map((c) => `MAX(${c}) AS ${c}`)].join(', ');
// A handful of texts (4 groupings, with or without a queue and an end hour), each prepared once.
const texts = new Map<string, string>();

function rangeSql(by: Grouping, queue: boolean, through: boolean, channels = false): string {
  const key = `${by}|${queue}|${through}|${channels}`;
  let sql = texts.get(key);
  if (sql === undefined) {
    const group = GROUP_BY[by];
    const where = ['branch_id = $1', 'mode = $2', 'day >= $3', 'day <= $4'];
    let n = 4;
    if (queue) where.push(`queue = $${++n}`);
    if (through) {
      where.push(`(day < $${n + 1} OR (day = $${n + 1} AND hour <= $${n + 2}))`);
      n += 2;
    }
    sql = channels
      ? `SELECT ${group === '' ? '' : `${group}, `}channel, SUM(rings) AS rings FROM insight_channel_hours WHERE ${where.join(' AND ')} GROUP BY ${group === '' ? '' : `${group}, `}channel`
      : `SELECT ${group === '' ? '' : `${group}, `}${AGGREGATES} FROM insight_hours WHERE ${where.join(' AND ')}${group === '' ? '' : ` GROUP BY ${group}`}`;
    texts.set(key, sql);
  }
  return sql;
}

/**
 * The sums of a period's rows, grouped as asked: SQL adds up the 24 rows per day and queue (a
 * range of the primary key), so what leaves the store is one row per group, not per hour. The
 * rings by channel, kept in rows keyed by channel (decision 0074), join each group as the sums
 * `rings_<channel>` (CHANNEL_SUMS); a channel no longer in the catalogue is left out.
 */
export async function rollupSums(q: Queryable, branchId: string, mode: Mode, r: RollupRange, by: Grouping): Promise<RollupRow[]> {
  const params: unknown[] = [branchId, mode, r.from, r.to];
  if (r.queue !== undefined) params.push(r.queue);
  if (r.through != null) params.push(r.through.day, r.through.hour);
  const [rows, byChannel] = await Promise.all([
    q.query<RollupRow>(rangeSql(by, r.queue !== undefined, r.through != null), params),
    q.query<RollupRow & { channel: string; rings: unknown }>(rangeSql(by, r.queue !== undefined, r.through != null, true), params),
  ]);
  const groupOf = (row: RollupRow): string => GROUP_KEYS[by].map((k) => String(row[k])).join('|');
  const groups = new Map(rows.map((row) => [groupOf(row), row]));
  for (const c of byChannel) {
    const sum = channelSumOf(c.channel);
    if (sum === undefined) continue;
    let row = groups.get(groupOf(c));
    if (row === undefined) {
      row = Object.fromEntries(GROUP_KEYS[by].map((k) => [k, c[k]]));
      groups.set(groupOf(c), row);
      rows.push(row);
    }
    row[sum] = Number(row[sum] ?? 0) + Number(c.rings);
  }
  return rows;
}
const GROUP_KEYS: Record<Grouping, readonly string[]> = { period: [], day: ['day'], hour: ['hour'], weekday_hour: ['weekday', 'hour'] };

// One range of (branch_id, mode, [queue,] status, id) per open status: as many rows as are open,
// which expiry bounds (decision 0021's ranges).
const open = (status: string, queue: boolean): string =>
  `SELECT created_at FROM tickets WHERE branch_id = $1 AND mode = $2${queue ? ' AND queue = $5' : ''} AND status = '${status}' AND id >= $3 AND id < $4`;
const OPEN_ALL = `${open('created', false)} UNION ALL ${open('ready', false)}`;
const OPEN_QUEUE = `${open('created', true)} UNION ALL ${open('ready', true)}`;

/** When each ticket created in [fromMs, toMs) that is still open was created. */
export async function openTicketTimes(
  q: Queryable,
  branchId: string,
  mode: Mode,
  fromMs: number,
  toMs: number,
  queue?: string,
): Promise<number[]> {
  const params: unknown[] = [branchId, mode, firstIdAt('ticket', fromMs), firstIdAt('ticket', toMs)];
  if (queue !== undefined) params.push(queue);
  const rows = await q.query<{ created_at: number }>(queue === undefined ? OPEN_ALL : OPEN_QUEUE, params);
  return rows.map((r) => Number(r.created_at));
}

export type ExportedTicket = {
  id: string;
  display_number: string;
  queue: string;
  status: string;
  external_ref: string | null;
  created_at: number;
  ready_at: number | null;
  collected_at: number | null;
  cancelled_at: number | null;
  expired_at: number | null;
  rings: number;
  notifications: string;
  viewed_at: number | null;
  acknowledged_at: number | null;
  /** How the ready ring reached the customer (its channel_used), null before one completed. */
  channel_used: string | null;
};

// Only these columns leave the store for an export: never the phone number, the metadata, the
// customer link's token or a cancellation's free text.
const EXPORT_COLUMNS =
  'id, display_number, queue, status, external_ref, created_at, ready_at, collected_at, cancelled_at, expired_at, rings, notifications, viewed_at, acknowledged_at';
const EXPORT_PAGE = `SELECT ${EXPORT_COLUMNS} FROM tickets WHERE branch_id = $1 AND mode = $2 AND id > $3 AND id < $4 ORDER BY id LIMIT $5`;
const EXPORT_PAGE_QUEUE = `SELECT ${EXPORT_COLUMNS} FROM tickets WHERE branch_id = $1 AND mode = $2 AND id > $3 AND id < $4 AND queue = $6 ORDER BY id LIMIT $5`;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * One page of the tickets created in [fromMs, toMs), oldest first, after the ticket id `after`
 * (or from the start); a range of (branch_id, mode, id), like a list's created range.
 */
export async function exportPage(
  q: Queryable,
  branchId: string,
  mode: Mode,
  range: { fromMs: number; toMs: number; after?: string; queue?: string },
): Promise<ExportedTicket[]> {
  // One text for every page, `id > $3`: the first page starts after the first id of fromMs less
  // its last character, a string below every id made at fromMs and above every earlier one.
  const after = range.after ?? firstIdAt('ticket', range.fromMs).slice(0, -1);
  const params: unknown[] = [branchId, mode, after, firstIdAt('ticket', range.toMs), EXPORT_PAGE_SIZE];
  if (range.queue !== undefined) params.push(range.queue);
  const rows = await q.query<Record<string, unknown>>(range.queue === undefined ? EXPORT_PAGE : EXPORT_PAGE_QUEUE, params);
  if (rows.length === 0) return [];
  const firstRings = await readyRingChannels(
    q,
    branchId,
    mode,
    rows.filter((r) => Number(r.rings) > 0).map((r) => String(r.id)),
  );
  return rows.map((r) => ({
    id: String(r.id),
    display_number: String(r.display_number),
    queue: String(r.queue),
    status: String(r.status),
    external_ref: r.external_ref === null ? null : String(r.external_ref),
    created_at: Number(r.created_at),
    ready_at: num(r.ready_at),
    collected_at: num(r.collected_at),
    cancelled_at: num(r.cancelled_at),
    expired_at: num(r.expired_at),
    rings: Number(r.rings),
    notifications: String(r.notifications),
    viewed_at: num(r.viewed_at),
    acknowledged_at: num(r.acknowledged_at),
    channel_used: firstRings.get(String(r.id)) ?? null,
  }));
}

/** Tickets per export page, and so the width of the ring lookup's list. */
export const EXPORT_PAGE_SIZE = 500;

// One statement text whatever the page holds (the stores cache prepared statements by text and
// never evict): the list is always EXPORT_PAGE_SIZE wide, padded with NULL, which matches nothing.
const READY_RINGS = `SELECT ticket_id, result FROM rings WHERE ticket_id IN (${Array.from({ length: EXPORT_PAGE_SIZE }, (_, i) => `$${i + 3}`).join(', ')}) AND seq = 1 AND branch_id = $1 AND mode = $2`;

/** The channel_used of each ticket's first ring (the ready's), for at most EXPORT_PAGE_SIZE tickets; one query. */
async function readyRingChannels(q: Queryable, branchId: string, mode: Mode, ticketIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (ticketIds.length === 0) return out;
  const padded = [...ticketIds, ...Array<null>(EXPORT_PAGE_SIZE - ticketIds.length).fill(null)];
  const rows = await q.query<{ ticket_id: string; result: string | null }>(READY_RINGS, [branchId, mode, ...padded]);
  for (const r of rows) {
    const channel = r.result === null ? null : (JSON.parse(r.result) as { channel_used?: string }).channel_used;
    if (typeof channel === 'string') out.set(r.ticket_id, channel);
  }
  return out;
}
