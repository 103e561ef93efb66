// `readybell insights rebuild`: a branch's rollups recomputed from its tickets (decision 0025), for
// history from before the rollups existed, or after anything went wrong with them. Every change
// is read back from where it is kept: the ticket's own times (created, ready, collected,
// cancelled, expired, its acknowledgement), its rings' results, and the snooze events (kept 30
// days; older snoozes stay as the rows counted them).
//
// The service keeps running meanwhile. A change is counted in the hour it happens, so changes
// that happen during a rebuild count in hours the rebuild leaves alone: it replaces only the hours
// that ended before REBUILD_MARGIN_MS ago, which no transaction still open can write to.
import type { Db } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';
import { getBranch } from '../store/tenancy.ts';
import { AppError } from '../domain/errors.ts';
import { addDays, LocalCalendar, localHour, type LocalHour } from '../domain/local-time.ts';
import { channelOfSum, deltasOf, FIRST_VALUE, ROLLUP_COLUMNS, type Deltas } from '../store/insights-rollups.ts';
import { historyPage, replaceRollups, snoozeEvents, type RebuiltRow } from '../store/insights-rebuild.ts';

/** Longer than any transaction lasts: a change whose clock was read before this is committed. */
export const REBUILD_MARGIN_MS = 10 * 60_000;
/** How long events are kept (src/store/outbox.ts), so how far back snoozes can be recounted. */
const EVENTS_KEPT_MS = 30 * 24 * 3600_000;

export type RebuildReport = { mode: Mode; tickets: number; rings: number; snoozes: number; rows: number; through: LocalHour };

const VALUE_INDEX = new Map(ROLLUP_COLUMNS.slice(FIRST_VALUE).map((c, i) => [c, i]));
const VALUES = ROLLUP_COLUMNS.length - FIRST_VALUE;

export async function rebuildInsights(
  db: Db,
  branchId: string,
  now: number,
  modes: readonly Mode[] = ['live', 'test'],
): Promise<RebuildReport[]> {
  const branch = await getBranch(db, branchId);
  if (branch === undefined) throw new AppError('not-found', `No branch ${branchId}.`);
  const calendar = new LocalCalendar(branch.timezone);
  // Rows of hours before this one are replaced; this hour and later keep counting live.
  const cut = localHour(now - REBUILD_MARGIN_MS, branch.timezone);
  const recountSnoozesFrom = addDays(localHour(now - EVENTS_KEPT_MS, branch.timezone).day, 1);
  const reports: RebuildReport[] = [];
  for (const mode of modes) {
    const rows = new Map<string, RebuiltRow>();
    const count = (at: number, queue: string, d: Deltas): void => {
      const { day, hour } = calendar.hourOf(at);
      if (day > cut.day || (day === cut.day && hour >= cut.hour)) return;
      const key = `${day}|${hour}|${queue}`;
      let row = rows.get(key);
      if (row === undefined) rows.set(key, (row = { day, hour, queue, values: new Float64Array(VALUES), channels: new Map() }));
      for (const [c, v] of d.add) {
        const i = VALUE_INDEX.get(c);
        // Not a column: a ring's channel (`rings_<channel>`), kept in its own row (decision 0074).
        if (i === undefined) row.channels.set(channelOfSum(c), (row.channels.get(channelOfSum(c)) ?? 0) + v);
        else row.values[i]! += v;
      }
      for (const [c, v] of d.max) row.values[VALUE_INDEX.get(c)!] = Math.max(row.values[VALUE_INDEX.get(c)!]!, v);
    };
    let tickets = 0;
    let rings = 0;
    let after = '';
    for (;;) {
      const page = await historyPage(db, branchId, mode, after);
      if (page.tickets.length === 0) break;
      const queueOf = new Map<string, string>();
      for (const t of page.tickets) {
        queueOf.set(t.id, t.queue);
        count(t.created_at, t.queue, deltasOf({ kind: 'created' }));
        if (t.ready_at !== null) count(t.ready_at, t.queue, deltasOf({ kind: 'ready', preparationMs: t.ready_at - t.created_at }));
        if (t.collected_at !== null)
          count(
            t.collected_at,
            t.queue,
            deltasOf({ kind: 'collected', pickupMs: t.ready_at === null ? null : t.collected_at - t.ready_at }),
          );
        if (t.cancelled_at !== null) count(t.cancelled_at, t.queue, deltasOf({ kind: 'cancelled' }));
        if (t.expired_at !== null) count(t.expired_at, t.queue, deltasOf({ kind: 'expired' }));
        if (t.acknowledged_at !== null) count(t.acknowledged_at, t.queue, deltasOf({ kind: 'acknowledged' }));
      }
      for (const r of page.rings) {
        const result = JSON.parse(r.result) as { channel_used?: string; call_out_loud?: boolean };
        count(
          r.completed_at,
          queueOf.get(r.ticket_id)!,
          deltasOf({ kind: 'rung', channel: result.channel_used ?? 'unknown', calledOut: result.call_out_loud === true }),
        );
      }
      tickets += page.tickets.length;
      rings += page.rings.length;
      after = page.tickets[page.tickets.length - 1]!.id;
    }
    let snoozes = 0;
    for (const s of await snoozeEvents(db, branchId, mode)) {
      if (calendar.hourOf(s.at).day < recountSnoozesFrom) continue;
      count(s.at, s.queue, deltasOf({ kind: 'snoozed' }));
      snoozes += 1;
    }
    await replaceRollups(db, branchId, mode, cut, recountSnoozesFrom, [...rows.values()]);
    reports.push({ mode, tickets, rings, snoozes, rows: rows.size, through: cut });
  }
  return reports;
}
