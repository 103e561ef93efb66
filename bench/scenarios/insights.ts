// What owner insights cost as history grows (issue 17, decision 0025): a 90-day read of every
// insights route on a store whose branch has 10,000 tickets and on one whose branch has
// 1,000,000, printing each route's medians and the 1M/10k ratio (goal: within ±20 %).
//
// Both stores hold the same last 180 days (the 90-day period and the 90 days it is compared
// with): 10,000 tickets written straight in (test/helpers/ticket-history.ts). The large store
// has 990,000 more in the two years before, so the two differ only in how much history lies
// behind the period. Their rollups are made by `readybell insights rebuild`'s own code, timed: the
// figure an operator upgrading a busy branch waits for.
//
// As in the history scenario, the small store has a readybell of its own and the two are asked
// in turn, request by request, so both see the same load from whatever else runs.
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import { insertQueue } from '../../src/store/tenancy.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { rebuildInsights } from '../../src/actions/rebuild-insights.ts';
import { addDays, localHour } from '../../src/domain/local-time.ts';
import { fillHistory } from '../../test/helpers/ticket-history.ts';
import type { Readybell } from '../lib/readybell.ts';
import { compareAtScale, nodePidOf, shortCount as k } from '../lib/scale-compare.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

const SMALL = 10_000;
const LARGE = Number(process.env['BENCH_INSIGHTS_TICKETS'] || 1_000_000);
const DAY = 24 * 3600_000;
/** The period read, and before it the period it is compared with: both in every store. */
const PERIOD_DAYS = 90;
const RECENT_MS = 2 * PERIOD_DAYS * DAY;
/** The rest of the large store's history, before the recent days. */
const OLDER_MS = 2 * 365 * DAY;
const TIMEZONE = 'Europe/Paris';

type Route = { label: string; path: string };

function routes(today: string): Route[] {
  const q = `from=${addDays(today, 1 - PERIOD_DAYS)}&to=${today}`;
  return [
    { label: 'GET /v1/insights (and the 90 days before)', path: `/v1/insights?${q}` },
    { label: 'GET /v1/insights/days', path: `/v1/insights/days?${q}` },
    { label: 'GET /v1/insights/hours', path: `/v1/insights/hours?${q}` },
    { label: 'GET /v1/insights/weekday_hours', path: `/v1/insights/weekday_hours?${q}` },
    { label: 'GET /v1/insights?queue=B', path: `/v1/insights?${q}&queue=B` },
    { label: 'GET /v1/insights/tickets.csv (7 days)', path: `/v1/insights/tickets.csv?from=${addDays(today, -6)}&to=${today}` },
  ];
}

/** A branch with `size` tickets in `server`'s store and its rollups rebuilt; the rebuild's seconds. */
async function branchIn(
  server: Readybell,
  size: number,
  now: number,
): Promise<{ key: string; nodePid: number; rebuildS: number; fillS: number }> {
  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: server.dataDir, ...server.store.env }));
  try {
    const tenant = await db.write(async (tx) => {
      const account = await createAccount(tx, { name: 'bench insights', plan: 'pro' }, now);
      const branch = await createBranch(tx, { accountId: account.id, name: 'bench insights', timezone: TIMEZONE }, now);
      await insertQueue(tx, { branchId: branch.id, name: 'B', createdAt: now });
      return { branchId: branch.id, key: (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key };
    });
    const t0 = performance.now();
    await fillHistory(
      db,
      { branchId: tenant.branchId, mode: 'test', newestAt: now, everyMs: Math.round(RECENT_MS / SMALL), open: 20, tag: 0 },
      0,
      SMALL,
    );
    if (size > SMALL) {
      const older = size - SMALL;
      await fillHistory(
        db,
        {
          branchId: tenant.branchId,
          mode: 'test',
          newestAt: now - RECENT_MS - 1000,
          everyMs: Math.round(OLDER_MS / older),
          open: 0,
          tag: 1,
        },
        0,
        older,
      );
    }
    const t1 = performance.now();
    await rebuildInsights(db, tenant.branchId, now, ['test']);
    const t2 = performance.now();
    return { key: tenant.key, nodePid: nodePidOf(server), fillS: (t1 - t0) / 1000, rebuildS: (t2 - t1) / 1000 };
  } finally {
    await db.close();
  }
}

export const insights: Scenario = {
  name: 'insights',
  kind: 'readybell',
  async run(ctx: ReadybellContext): Promise<Row[]> {
    const label = ctx.server.store.label;
    const [S, L] = [k(SMALL), k(LARGE)];
    const samples = await compareAtScale(ctx, {
      scenario: 'insights',
      tmpPrefix: 'rb-bench-insights-',
      small: SMALL,
      large: LARGE,
      largeVar: 'BENCH_INSIGHTS_TICKETS',
      build: branchIn,
      built: (made, size) =>
        `${size.toLocaleString('en')} tickets written in ${made.fillS.toFixed(1)} s, rollups rebuilt in ${made.rebuildS.toFixed(1)} s`,
      items: (_, now) => routes(localHour(now, TIMEZONE).day),
      pathOf: (r) => r.path,
      noun: 'route',
      column: 'route (90 days)',
      rowsColumn: false,
      mismatch: { unit: 'rows', why: 'both stores must hold the same recent days' },
      intro: ([small, large]) =>
        `insights (${label}): the insights routes for ${PERIOD_DAYS} days on a branch of ${S} tickets and one of ${L} (the same last ${2 * PERIOD_DAYS} days, ` +
        `${k(LARGE - SMALL)} older), sequential requests taking turns. Rollups rebuilt from the tickets in ${small.rebuildS.toFixed(1)} s (${S}) and ${large.rebuildS.toFixed(1)} s (${L}).`,
      goal: "every insights route's CPU",
    });
    const [a, b] = samples[0]!;
    return [
      {
        scenario: `insights 90 days, ${L}`,
        store: label,
        rps: 1000 / b.medianMs,
        p50: Number(b.medianMs.toFixed(2)),
        p99: Number(b.medianMs.toFixed(2)),
        errors: 0,
        cpuUs: b.cpuUs,
        note: `GET /v1/insights, sequential; ${L}/${S} CPU ${(b.cpuUs / a.cpuUs).toFixed(2)}; see the insights table below`,
      },
    ];
  },
};
