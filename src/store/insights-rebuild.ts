// What `readybell insights rebuild` reads and writes (decision 0025): a branch's tickets, rings
// and snooze events page by page, and, once counted, the branch's rollup rows replaced in one
// transaction.
import type { Db, Queryable } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';
import { FIRST_VALUE, ROLLUP_COLUMNS } from './insights-rollups.ts';
import { weekday, type LocalHour } from '../domain/local-time.ts';

export type HistoryTicket = {
  id: string;
  queue: string;
  created_at: number;
  ready_at: number | null;
  collected_at: number | null;
  cancelled_at: number | null;
  expired_at: number | null;
  acknowledged_at: number | null;
  rings: number;
};
export type HistoryRing = { ticket_id: string; completed_at: number; result: string };

export const REBUILD_PAGE = 2_000;

const TICKETS_PAGE = `SELECT id, queue, created_at, ready_at, collected_at, cancelled_at, expired_at, acknowledged_at, rings
  FROM tickets WHERE branch_id = $1 AND mode = $2 AND id > $3 ORDER BY id LIMIT ${REBUILD_PAGE}`;
// A fixed-width list (padded with NULL) keeps one statement text for every page.
const RINGS_OF = `SELECT ticket_id, completed_at, result FROM rings
  WHERE ticket_id IN (${Array.from({ length: REBUILD_PAGE }, (_, i) => `$${i + 3}`).join(', ')}) AND branch_id = $1 AND mode = $2 AND completed_at IS NOT NULL AND result IS NOT NULL`;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The branch's tickets after `after` (an id; '' for the first page), oldest first, with their completed rings. */
export async function historyPage(
  q: Queryable,
  branchId: string,
  mode: Mode,
  after: string,
): Promise<{ tickets: HistoryTicket[]; rings: HistoryRing[] }> {
  const rows = await q.query<Record<string, unknown>>(TICKETS_PAGE, [branchId, mode, after]);
  const tickets = rows.map((r) => ({
    id: String(r.id),
    queue: String(r.queue),
    created_at: Number(r.created_at),
    ready_at: num(r.ready_at),
    collected_at: num(r.collected_at),
    cancelled_at: num(r.cancelled_at),
    expired_at: num(r.expired_at),
    acknowledged_at: num(r.acknowledged_at),
    rings: Number(r.rings),
  }));
  const rung = tickets.filter((t) => t.rings > 0).map((t) => t.id);
  if (rung.length === 0) return { tickets, rings: [] };
  const padded = [...rung, ...Array<null>(REBUILD_PAGE - rung.length).fill(null)];
  const rings = (await q.query<Record<string, unknown>>(RINGS_OF, [branchId, mode, ...padded])).map((r) => ({
    ticket_id: String(r.ticket_id),
    completed_at: Number(r.completed_at),
    result: String(r.result),
  }));
  return { tickets, rings };
}

/** Snoozes the events still hold (events are kept 30 days): when, and in which queue. */
export async function snoozeEvents(q: Queryable, branchId: string, mode: Mode): Promise<Array<{ at: number; queue: string }>> {
  const rows = await q.query<{ created_at: number; body: string }>(
    "SELECT created_at, body FROM events WHERE branch_id = $1 AND mode = $2 AND type = 'ticket.customer_snoozed'",
    [branchId, mode],
  );
  return rows.map((r) => ({
    at: Number(r.created_at),
    queue: String((JSON.parse(r.body) as { data: { object: { queue: string } } }).data.object.queue),
  }));
}

/**
 * Rows per INSERT. More is not faster: on SQLite a statement's cost grew faster than its rows
 * from about 20 rows of these 74 columns (200 rows took 0.5 s a statement, 10 rows 2 ms).
 */
const INSERT_ROWS = 10;
const tuple = (row: number): string => `(${ROLLUP_COLUMNS.map((_, j) => `$${row * ROLLUP_COLUMNS.length + j + 1}`).join(', ')})`;
const INSERT_ONE = `INSERT INTO insight_hours (${ROLLUP_COLUMNS.join(', ')}) VALUES ${tuple(0)}`;
const INSERT_MANY = `INSERT INTO insight_hours (${ROLLUP_COLUMNS.join(', ')}) VALUES ${Array.from({ length: INSERT_ROWS }, (_, r) => tuple(r)).join(', ')}`;

/** `values`: in the order of ROLLUP_COLUMNS' values; `channels`: the hour's rings by channel (insight_channel_hours). */
export type RebuiltRow = { day: string; hour: number; queue: string; values: Float64Array; channels: Map<string, number> };

const CHANNEL_COLUMNS = 'branch_id, mode, day, hour, queue, shard, channel, weekday, rings';
const channelTuple = (row: number): string => `(${Array.from({ length: 9 }, (_, j) => `$${row * 9 + j + 1}`).join(', ')})`;
const INSERT_CHANNEL_ONE = `INSERT INTO insight_channel_hours (${CHANNEL_COLUMNS}) VALUES ${channelTuple(0)}`;
const INSERT_CHANNEL_MANY = `INSERT INTO insight_channel_hours (${CHANNEL_COLUMNS}) VALUES ${Array.from({ length: INSERT_ROWS }, (_, r) => channelTuple(r)).join(', ')}`;

const BEFORE_CUT = '(day < $3 OR (day = $3 AND hour < $4))';

/**
 * Replaces the rows of the hours before `cut` with `rows`, in one transaction. The snoozes of
 * days before `keepSnoozesBefore`, which no event records any more, are kept from the rows they
 * replace. Rows of `cut`'s hour and later are left to the changes that keep counting into them.
 * Each hour and queue becomes one row (shard 0), whatever shards it was counted in.
 */
export async function replaceRollups(
  db: Db,
  branchId: string,
  mode: Mode,
  cut: LocalHour,
  keepSnoozesBefore: string,
  rows: RebuiltRow[],
): Promise<void> {
  const snoozedAt = ROLLUP_COLUMNS.indexOf('snoozed') - FIRST_VALUE;
  const sums = ROLLUP_COLUMNS.length - FIRST_VALUE;
  await db.write(async (tx) => {
    const kept = await tx.query<{ day: string; hour: number; queue: string; snoozed: number }>(
      `SELECT day, hour, queue, SUM(snoozed) AS snoozed FROM insight_hours WHERE branch_id = $1 AND mode = $2 AND ${BEFORE_CUT} AND day < $5 AND snoozed > 0
       GROUP BY day, hour, queue`,
      [branchId, mode, cut.day, cut.hour, keepSnoozesBefore],
    );
    const byKey = new Map(rows.map((r) => [`${r.day}|${r.hour}|${r.queue}`, r]));
    for (const k of kept) {
      const key = `${k.day}|${Number(k.hour)}|${k.queue}`;
      let row = byKey.get(key);
      if (row === undefined) {
        row = { day: k.day, hour: Number(k.hour), queue: k.queue, values: new Float64Array(sums), channels: new Map() };
        byKey.set(key, row);
      }
      row.values[snoozedAt] = Number(k.snoozed);
    }
    await tx.run(`DELETE FROM insight_hours WHERE branch_id = $1 AND mode = $2 AND ${BEFORE_CUT}`, [branchId, mode, cut.day, cut.hour]);
    await tx.run(`DELETE FROM insight_channel_hours WHERE branch_id = $1 AND mode = $2 AND ${BEFORE_CUT}`, [
      branchId,
      mode,
      cut.day,
      cut.hour,
    ]);
    // Whole chunks, then the rest one row at a time: two statement texts whatever the count (the
    // stores keep every text they prepare).
    const all = [...byKey.values()];
    const whole = all.length - (all.length % INSERT_ROWS);
    for (let i = 0; i < all.length; i += i < whole ? INSERT_ROWS : 1) {
      const chunk = all.slice(i, i < whole ? i + INSERT_ROWS : i + 1);
      // Rebuilt hours are one row each (shard 0): nothing writes to them concurrently.
      const params = chunk.flatMap((r) => [branchId, mode, r.day, r.hour, r.queue, 0, weekday(r.day), ...r.values]);
      await tx.run(chunk.length === INSERT_ROWS ? INSERT_MANY : INSERT_ONE, params);
    }
    const byChannel = all.flatMap((r) =>
      [...r.channels]
        .filter(([, n]) => n > 0)
        .map(([channel, n]) => [branchId, mode, r.day, r.hour, r.queue, 0, channel, weekday(r.day), n]),
    );
    const wholeChannels = byChannel.length - (byChannel.length % INSERT_ROWS);
    for (let i = 0; i < byChannel.length; i += i < wholeChannels ? INSERT_ROWS : 1) {
      const chunk = byChannel.slice(i, i < wholeChannels ? i + INSERT_ROWS : i + 1);
      await tx.run(chunk.length === INSERT_ROWS ? INSERT_CHANNEL_MANY : INSERT_CHANNEL_ONE, chunk.flat());
    }
  });
}
