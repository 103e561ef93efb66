// The write side of owner insights (decision 0025): every change an owner's figures count is
// added to the rollup row of its branch, mode, local date and hour, and queue, by one upsert in
// the change's own transaction. So a committed change is counted exactly once (a rolled-back one
// never, a crash loses neither), and a read of a period never looks at the tickets.
//
// The upsert goes with `tx.later`: nothing in the transaction reads it back, so on PostgreSQL it
// travels with the next statement (usually the COMMIT) and costs no round trip of its own.
import type { RowWrite } from '../core/events.ts';
import type { Db, Dialect, Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { Mode } from '../core/tenancy.ts';
import { localHour, weekday, type LocalHour } from '../domain/local-time.ts';
import {
  bucketOf,
  CHANNEL_SUMS,
  channelSumOf,
  MAX_COLUMNS,
  PICKUP_BUCKET_COLUMNS,
  PREP_BUCKET_COLUMNS,
  SUM_COLUMNS,
} from '../domain/insight-figures.ts';

export type InsightChange =
  | { kind: 'created' }
  | { kind: 'ready'; preparationMs: number }
  /** `pickupMs`: ready to collected; null for a ticket collected without having been ready. */
  | { kind: 'collected'; pickupMs: number | null }
  | { kind: 'cancelled' }
  | { kind: 'expired' }
  /** A ring completed: the strongest channel that reached the customer, and whether a board called it out. */
  | { kind: 'rung'; channel: string; calledOut: boolean }
  /** "On my way", counted once per ticket (the first; see decision 0025). */
  | { kind: 'acknowledged' }
  | { kind: 'snoozed' };

/**
 * What one change adds to a row: columns to add to, and longest durations to raise. A sum of
 * CHANNEL_SUMS (`rings_<channel>`) is not a column: it goes to the channel's row of
 * insight_channel_hours (decision 0074).
 */
export type Deltas = { add: Array<[string, number]>; max: Array<[string, number]> };

export function deltasOf(change: InsightChange, times = 1): Deltas {
  switch (change.kind) {
    case 'created':
    case 'cancelled':
    case 'expired':
    case 'acknowledged':
    case 'snoozed':
      return { add: [[change.kind, times]], max: [] };
    case 'ready': {
      const ms = Math.max(0, change.preparationMs);
      return {
        add: [
          ['ready', times],
          ['prep_sum_ms', ms * times],
          [PREP_BUCKET_COLUMNS[bucketOf(ms)]!, times],
        ],
        max: [['prep_max_ms', ms]],
      };
    }
    case 'collected': {
      if (change.pickupMs === null) return { add: [['collected', times]], max: [] };
      const ms = Math.max(0, change.pickupMs);
      return {
        add: [
          ['collected', times],
          ['pickup_count', times],
          ['pickup_sum_ms', ms * times],
          [PICKUP_BUCKET_COLUMNS[bucketOf(ms)]!, times],
        ],
        max: [['pickup_max_ms', ms]],
      };
    }
    case 'rung': {
      const add: Array<[string, number]> = [
        ['rings', times],
        [channelSumOf(change.channel) ?? channelSumOf('unknown')!, times],
      ];
      if (change.calledOut) add.push(['rings_called_out', times]);
      return { add, max: [] };
    }
  }
}

const KEY = 'branch_id, mode, day, hour, queue, shard';

// One fixed text per shape of change: the stores cache prepared statements by their text, and
// the shapes are few (a change kind and, for durations, one bucket of 25).
const upserts = new Map<string, string>();

function upsertSql(add: readonly string[], max: readonly string[]): string {
  const shape = `${add.join(',')}|${max.join(',')}`;
  let sql = upserts.get(shape);
  if (sql === undefined) {
    const cols = [...add, ...max];
    const sets = [
      ...add.map((c) => `${c} = insight_hours.${c} + excluded.${c}`),
      // CASE rather than MAX()/GREATEST(): the one spelling both engines read.
      ...max.map((c) => `${c} = CASE WHEN excluded.${c} > insight_hours.${c} THEN excluded.${c} ELSE insight_hours.${c} END`),
    ];
    sql = `INSERT INTO insight_hours (${KEY}, weekday, ${cols.join(', ')}) VALUES ($1, $2, $3, $4, $5, $6, $7, ${cols.map((_, i) => `$${i + 8}`).join(', ')})
      ON CONFLICT (${KEY}) DO UPDATE SET ${sets.join(', ')}`;
    upserts.set(shape, sql);
  }
  return sql;
}

export type Counted = { id: string; branchId: string; mode: Mode; queue: string };

/**
 * The row of the hour a ticket's changes go to. On PostgreSQL an upsert locks its row until
 * COMMIT: with one row per hour and queue every ready, ring and collect of a queue waited for the
 * one before to commit (decision 0025), and with 8 rows a batch of readies sharing a commit
 * (decision 0079) held up to 8 of them, in no fixed order, for the whole batch, which concurrent
 * writes of the queue on other connections or nodes then queued on. So each ticket has a row of
 * its own: a delta appended by its first change of the hour and added to by its later ones, which
 * no other ticket's write touches (ids are random: two tickets share a row once in 2^30). The
 * maintenance folds the rows of past days into shard 0, one per hour (foldShards); reads add up
 * whatever rows an hour has. SQLite has one writer, and no lock to wait for: one row.
 */
const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** Characters of the id's random tail that name its row: 30 bits, within a signed INTEGER after the + 1. */
const ROW_CHARS = 6;

/**
 * A ticket's row among the hour's: 1 + the last 30 bits of its id (random; within one millisecond
 * counting up), never 0, the folded row. Every change of a ticket goes to the same row, so a
 * transaction locks no row another ticket's change needs.
 */
export function shardOf(ticketId: string, dialect: Dialect): number {
  if (dialect === 'sqlite') return 0;
  let n = 0;
  for (const c of ticketId.slice(-ROW_CHARS)) n = n * 32 + Math.max(0, ID_ALPHABET.indexOf(c));
  return n + 1;
}

/**
 * Counts a change of `ticket` at `at` (the change's own clock reading) in the row of the local
 * hour it happened in. `timeZone`: the branch's, when the caller has just read the branch (a
 * create); otherwise it is looked up (cached briefly). `times`: for a caller counting several
 * identical changes at once (creates that share one statement).
 */
export async function countTicketChange(
  tx: Tx,
  ticket: Counted,
  at: number,
  change: InsightChange | readonly InsightChange[],
  timeZone?: string,
  times = 1,
): Promise<void> {
  const where = localHour(at, timeZone ?? (await branchTimeZone(tx, ticket.branchId)));
  if (timeZone !== undefined) rememberTimeZone(ticket.branchId, timeZone);
  const changes: readonly InsightChange[] = Array.isArray(change) ? change : [change as InsightChange];
  await addToRollup(tx, ticket, where, mergeDeltas(changes.map((c) => deltasOf(c, times))));
}

/**
 * Several changes of one ticket at one instant (a ready and the ring that completed with it) as
 * one upsert of their row: the row is updated, and locked until COMMIT, once (decision 0054).
 */
export function mergeDeltas(all: readonly Deltas[]): Deltas {
  if (all.length === 1) return all[0]!;
  const add = new Map<string, number>();
  const max = new Map<string, number>();
  for (const d of all) {
    for (const [c, v] of d.add) add.set(c, (add.get(c) ?? 0) + v);
    for (const [c, v] of d.max) max.set(c, Math.max(max.get(c) ?? v, v));
  }
  return { add: [...add], max: [...max] };
}

const CHANNEL_SUM_SET: ReadonlySet<string> = new Set(CHANNEL_SUMS);
/** The channel a sum of CHANNEL_SUMS counts (`rings_push` → `push`). */
export const channelOfSum = (sum: string): string => sum.slice('rings_'.length);

const CHANNEL_UPSERT = `INSERT INTO insight_channel_hours (${KEY}, channel, weekday, rings) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  ON CONFLICT (${KEY}, channel) DO UPDATE SET rings = insight_channel_hours.rings + excluded.rings`;

export async function addToRollup(tx: Tx, ticket: Counted, { day, hour }: LocalHour, d: Deltas): Promise<void> {
  const key = [ticket.branchId, ticket.mode, day, hour, ticket.queue, shardOf(ticket.id, tx.dialect)];
  const add = d.add.filter(([c]) => !CHANNEL_SUM_SET.has(c));
  if (add.length > 0 || d.max.length > 0)
    await tx.later(
      upsertSql(
        add.map(([c]) => c),
        d.max.map(([c]) => c),
      ),
      [...key, weekday(day), ...add.map(([, v]) => v), ...d.max.map(([, v]) => v)],
    );
  for (const [c, v] of d.add) if (CHANNEL_SUM_SET.has(c)) await tx.later(CHANNEL_UPSERT, [...key, channelOfSum(c), weekday(day), v]);
}

/** Which "On my way" or snooze a ticket's figures count: the first acknowledgement only. */
export function customerAnswer(action: string, before: { acknowledgedAt: number | null }): InsightChange | null {
  if (action === 'snooze') return { kind: 'snoozed' };
  if (action === 'acknowledge' && before.acknowledgedAt === null) return { kind: 'acknowledged' };
  return null;
}

/** The change a closing ticket counts (collected, cancelled or expired), from the ticket as it closed. */
export function closingChange(t: { status: string; readyAt: number | null; collectedAt: number | null }): InsightChange {
  if (t.status === 'collected')
    return { kind: 'collected', pickupMs: t.readyAt === null || t.collectedAt === null ? null : t.collectedAt - t.readyAt };
  return { kind: t.status === 'cancelled' ? 'cancelled' : 'expired' };
}

// Branch time zones, as this node last read them. A change outside a create does not read its
// branch, and on PostgreSQL a read is a round trip; a zone is kept for a minute, and a branch
// update on this node forgets it at once (forgetTimeZone). Another node's update is seen within
// TIME_ZONE_TTL_MS: the changes of that minute count in the hours of the old zone (a branch
// changes its zone once in its life, if ever; decision 0025).
export const TIME_ZONE_TTL_MS = 60_000;
const zones = new Map<string, { tz: string; until: number }>();

function rememberTimeZone(branchId: string, tz: string): void {
  zones.set(branchId, { tz, until: performance.now() + TIME_ZONE_TTL_MS });
}

export function forgetTimeZone(branchId: string): void {
  zones.delete(branchId);
}

export async function branchTimeZone(q: Queryable, branchId: string): Promise<string> {
  const known = zones.get(branchId);
  if (known !== undefined && known.until > performance.now()) return known.tz;
  const row = await one<{ timezone: string }>(q, 'SELECT timezone FROM branches WHERE id = $1', [branchId]);
  if (row === undefined) throw new Error(`no branch ${branchId}`);
  // Bounded like the branches themselves; a node serves a bounded set of them.
  if (zones.size > 10_000) zones.clear();
  rememberTimeZone(branchId, row.timezone);
  return row.timezone;
}

/** Every rollup column in a fixed order: key and weekday, then sums, then maxima (rebuild's full rows). */
export const ROLLUP_COLUMNS = [...KEY.split(', '), 'weekday', ...SUM_COLUMNS, ...MAX_COLUMNS];
/** Where the values (sums and maxima) start in ROLLUP_COLUMNS. */
export const FIRST_VALUE = 7;

/** Rows of shards folded per statement: a bounded transaction however many branches there are. */
const FOLD_BATCH = 1_000;
const VALUE_COLUMNS = [...SUM_COLUMNS, ...MAX_COLUMNS];
// PostgreSQL only (SQLite keeps one row per hour): the shards of a batch of rows deleted and
// added into their hour's shard 0, in one statement, so a crash or a second node running it at the
// same moment can neither lose nor double a count (a row is deleted once; the second finds none).
const FOLD_PG = `WITH moved AS (
    DELETE FROM insight_hours WHERE ctid IN (SELECT ctid FROM insight_hours WHERE shard > 0 AND day < $1 LIMIT ${FOLD_BATCH})
    RETURNING *
  )
  INSERT INTO insight_hours (${KEY}, weekday, ${VALUE_COLUMNS.join(', ')})
  SELECT branch_id, mode, day, hour, queue, 0, MIN(weekday), ${SUM_COLUMNS.map((c) => `SUM(${c})`).join(', ')}, ${MAX_COLUMNS.map((c) => `MAX(${c})`).join(', ')}
  FROM moved GROUP BY branch_id, mode, day, hour, queue
  ON CONFLICT (${KEY}) DO UPDATE SET ${[
    ...SUM_COLUMNS.map((c) => `${c} = insight_hours.${c} + excluded.${c}`),
    ...MAX_COLUMNS.map((c) => `${c} = CASE WHEN excluded.${c} > insight_hours.${c} THEN excluded.${c} ELSE insight_hours.${c} END`),
  ].join(', ')}`;

// The same for the rows by channel.
const FOLD_CHANNELS_PG = `WITH moved AS (
    DELETE FROM insight_channel_hours WHERE ctid IN (SELECT ctid FROM insight_channel_hours WHERE shard > 0 AND day < $1 LIMIT ${FOLD_BATCH})
    RETURNING *
  )
  INSERT INTO insight_channel_hours (${KEY}, channel, weekday, rings)
  SELECT branch_id, mode, day, hour, queue, 0, channel, MIN(weekday), SUM(rings)
  FROM moved GROUP BY branch_id, mode, day, hour, queue, channel
  ON CONFLICT (${KEY}, channel) DO UPDATE SET rings = insight_channel_hours.rings + excluded.rings`;

/**
 * Folds the shards of hours that are over into one row each, so that reads of past days add up
 * one row per hour and queue, not eight. "Over" for every zone: a day two days before today's UTC
 * date (no zone is more than 14 hours from UTC), which no change can be counted in any more.
 * Returns how many hour rows it added into. Run by every node's maintenance; PostgreSQL only.
 */
export async function foldShards(db: Db, now: number): Promise<number> {
  if (db.dialect !== 'postgres') return 0;
  const before = new Date(now - 2 * 86_400_000).toISOString().slice(0, 10);
  let folded = 0;
  for (;;) {
    const n = await db.write((tx) => tx.run(FOLD_PG, [before]));
    folded += n;
    if (n === 0) break;
  }
  while ((await db.write((tx) => tx.run(FOLD_CHANNELS_PG, [before]))) > 0);
  return folded;
}

/**
 * A create's count as one of the rows its commit writes (core/ticket-create.ts): the upsert
 * countTicketChange makes, merged with the creates committed together. The create has just read
 * its branch, so `timeZone` is fresh.
 */
export function createdRollupRow(ticket: Counted, at: number, timeZone: string, dialect: Dialect): RowWrite {
  const { day, hour } = localHour(at, timeZone);
  rememberTimeZone(ticket.branchId, timeZone);
  return {
    table: 'insight_hours',
    values: {
      branch_id: ticket.branchId,
      mode: ticket.mode,
      day,
      hour,
      queue: ticket.queue,
      shard: shardOf(ticket.id, dialect),
      weekday: weekday(day),
      created: 1,
    },
    // The weekday follows from the day: merged as the larger of two equal values.
    merge: { key: ['branch_id', 'mode', 'day', 'hour', 'queue', 'shard'], columns: { weekday: 'max', created: 'add' } },
  };
}
