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
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import { insertQueue } from '../../src/store/tenancy.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { rebuildInsights } from '../../src/actions/rebuild-insights.ts';
import { addDays, localHour } from '../../src/domain/local-time.ts';
import { fillHistory } from '../../test/helpers/ticket-history.ts';
import { HarnessError } from '../lib/proc.ts';
import { launchReadybell, type Readybell } from '../lib/readybell.ts';
import type { StoreTarget } from '../lib/stores.ts';
import { measureInTurn, nodePidOf, storeLike, type Request, type Sample } from './history.ts';
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
const WARMUP_MS = 500;
const TOLERANCE = 0.2;

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
  async run({ opts, server, report }: ReadybellContext): Promise<Row[]> {
    const label = server.store.label;
    if (!Number.isInteger(LARGE) || LARGE <= SMALL) throw new HarnessError(`BENCH_INSIGHTS_TICKETS must be a whole number above ${SMALL}`);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rb-bench-insights-'));
    let target: StoreTarget | null = null;
    let small: Readybell | null = null;
    try {
      target = await storeLike(label, dataDir);
      small = await launchReadybell({ repoRoot: opts.repoRoot, dataDir, store: target, cpuProfDir: opts.cpuProfDir });
      await small.start();
      const now = Date.now();
      const stores: Array<Awaited<ReturnType<typeof branchIn>>> = [];
      for (const [s, size] of [
        [small, SMALL],
        [server, LARGE],
      ] as const) {
        const made = await branchIn(s, size, now);
        report.log(
          `${label}: insights, ${size.toLocaleString('en')} tickets written in ${made.fillS.toFixed(1)} s, rollups rebuilt in ${made.rebuildS.toFixed(1)} s`,
        );
        stores.push(made);
      }
      const servers = [small, server];
      const list = routes(localHour(now, TIMEZONE).day);
      const turns = (i: number): Request[] =>
        stores.map((st, j) => ({ url: `${servers[j]!.url}${list[i]!.path}`, key: st.key, server: servers[j]!, nodePid: st.nodePid }));
      for (const i of list.keys()) await measureInTurn(turns(i), WARMUP_MS);
      report.log(`${label}: insights, every route on both stores in turn`);
      const samples: Array<readonly [Sample, Sample]> = [];
      for (const [i, r] of list.entries()) {
        const [a, b] = (await measureInTurn(turns(i))) as [Sample, Sample];
        if (a.rows !== b.rows)
          throw new HarnessError(
            `${r.label}: ${a.rows} rows at ${SMALL} but ${b.rows} at ${LARGE}; both stores must hold the same recent days`,
          );
        samples.push([a, b] as const);
      }

      const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
      const [S, L] = [k(SMALL), k(LARGE)];
      const header = [
        'route (90 days)',
        `ms ${S}`,
        `ms ${L}`,
        `ms ${L}/${S}`,
        `CPU µs ${S}`,
        `CPU µs ${L}`,
        `CPU ${L}/${S}`,
        `requests ${L}`,
      ];
      let outside = 0;
      const body = list.map((r, i) => {
        const [a, b] = samples[i]!;
        const ratio = b.cpuUs / a.cpuUs;
        const within = Math.abs(ratio - 1) <= TOLERANCE;
        if (!within) outside += 1;
        return [
          r.label,
          a.medianMs.toFixed(2),
          b.medianMs.toFixed(2),
          (b.medianMs / a.medianMs).toFixed(2),
          a.cpuUs.toFixed(0),
          b.cpuUs.toFixed(0),
          `${ratio.toFixed(2)}${within ? '' : ' *'}`,
          String(b.requests),
        ];
      });
      const widths = header.map((c, i) => Math.max(c.length, ...body.map((r) => r[i]!.length)));
      const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
      report.notes.push(
        `insights (${label}): the insights routes for ${PERIOD_DAYS} days on a branch of ${S} tickets and one of ${L} (the same last ${2 * PERIOD_DAYS} days, ` +
          `${k(LARGE - SMALL)} older), sequential requests taking turns. Rollups rebuilt from the tickets in ${stores[0]!.rebuildS.toFixed(1)} s (${S}) and ${stores[1]!.rebuildS.toFixed(1)} s (${L}).`,
        `  Medians per request of the wall time and of the CPU the server spent (${label === 'postgres' ? 'the node and its PostgreSQL backends' : 'every thread of the node'}); * = CPU ratio outside ±${TOLERANCE * 100} %`,
        ...[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].map((x) => `  ${x}`),
        `  ${outside === 0 ? '[ met ]' : '[MISSED]'} every insights route's CPU at ${L} within ±${TOLERANCE * 100} % of its CPU at ${S} (${label}): ${outside} outside`,
        '',
      );
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
    } finally {
      if (small !== null) await small.stop().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
      if (target !== null) await target.cleanup();
    }
  },
};
