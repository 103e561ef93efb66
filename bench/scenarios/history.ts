// What a list costs as history grows: every filter of GET /v1/tickets on a store whose branch has
// 10,000 tickets and on one whose branch has 1,000,000 (a year of closed tickets behind the same
// recent days), printing each filter's medians and the 1M/10k ratio. The tickets are written
// straight into the stores (test/helpers/ticket-history.ts): creating a million through the API
// would take hours.
//
// The small store gets a readybell of its own, and the two servers are asked in turn, request by
// request, so that both see the same load from whatever else runs on the machine. Measured one
// after the other, minutes apart, the same plan read up to 1.5 times the CPU on these shared
// 2-core machines. (Two branches of one store, asked in turn, would hide a plan that reads the
// whole table: on PostgreSQL, created_after then cost 250 ms on both.)
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import { insertQueue } from '../../src/store/tenancy.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { fillHistory } from '../../test/helpers/ticket-history.ts';
import { HarnessError } from '../lib/proc.ts';
import { backendPids, threadsCpuNs } from '../lib/cpu.ts';
import { pidListeningOn } from '../lib/sse.ts';
import { launchReadybell, type Readybell } from '../lib/readybell.ts';
import { embeddedTarget, postgresTarget, type StoreTarget } from '../lib/stores.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

const SMALL = 10_000;
const LARGE = Number(process.env['BENCH_HISTORY_TICKETS'] || 1_000_000);
/** A million tickets a year, so SMALL is the last few days and LARGE (by default) the year. */
const EVERY_MS = Math.round((365 * 24 * 3600_000) / 1_000_000);
const OPEN = 20;
/** Per filter and store: stop after this many requests or this long, whichever comes first. */
const MAX_REQUESTS = 200;
const MAX_MS = 3_000;
const MIN_REQUESTS = 5;
const WARMUP_MS = 500;
const TOLERANCE = 0.2;

type Filter = { label: string; query: string };

function filters(newestAt: number, ids: { mid: string; openPageEnd: string }): Filter[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  const hour = 3600_000;
  const day = 24 * hour;
  const f = (query: string, label = query): Filter => ({ label, query });
  return [
    f('', '(no filter)'),
    ...['created', 'ready', 'collected', 'cancelled', 'expired'].map((s) => f(`status=${s}`)),
    f('status=created,ready&limit=100'),
    f('status=collected,cancelled,expired&limit=12'),
    f('status=created,ready,collected,cancelled,expired'),
    f('status=cancelled,expired&limit=100'),
    f('queue=B'),
    f('queue=B&status=ready'),
    f('queue=A&status=created,ready&limit=100'),
    f('queue=B&status=expired'),
    f('external_ref=order-5000'),
    f('external_ref=order-5000&status=collected,cancelled'),
    f(`created_after=${iso(newestAt - hour / 2)}&limit=100`, 'created_after=(30 min ago)&limit=100'),
    f(
      `created_after=${iso(newestAt - 2 * day)}&created_before=${iso(newestAt - day)}`,
      'created_after=(2 days ago)&created_before=(1 day ago)',
    ),
    f(`created_before=${iso(newestAt - 3 * day)}`, 'created_before=(3 days ago)'),
    f(`starting_after=${ids.mid}`, 'starting_after=(ticket 5,000)'),
    f(`status=created,ready&starting_after=${ids.openPageEnd}`, 'status=created,ready&starting_after=(ticket 9)'),
    f(`status=collected&starting_after=${ids.mid}`, 'status=collected&starting_after=(ticket 5,000)'),
    f(`queue=B&starting_after=${ids.mid}`, 'queue=B&starting_after=(ticket 5,000)'),
  ];
}

export type Sample = { medianMs: number; cpuUs: number; requests: number; rows: number };
/** A request to a server whose node process is `nodePid`. */
export type Request = { url: string; key: string; server: Readybell; nodePid: number };

/**
 * The processes serving a server's requests: its node and, on PostgreSQL, its database's
 * backends, which its pool opens as it needs them (so they are looked up after warming up).
 */
async function servingPids(r: Request): Promise<number[]> {
  const url = r.server.store.env['DATABASE_URL'];
  return url === undefined ? [r.nodePid] : [r.nodePid, ...(await backendPids(url))];
}

export function nodePidOf(server: Readybell): number {
  const pid = pidListeningOn(Number(new URL(server.url).port));
  if (pid === null) throw new HarnessError(`cannot find the readybell process on ${server.url}, whose CPU this scenario measures`);
  return pid;
}

/** What an answer holds: a list's rows, a CSV's lines, one for anything else (insights' figures). */
function rowsOf(text: string): number {
  if (!text.startsWith('{')) return text.split('\n').length;
  const data = (JSON.parse(text) as { data?: unknown[] }).data;
  return Array.isArray(data) ? data.length : 1;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Sequential requests on one connection per server, the given ones taking turns: each one's wall
 * time and the CPU its servers spent on it.
 */
export async function measureInTurn(requests: Request[], maxMs = MAX_MS): Promise<Sample[]> {
  const get = async (r: Request): Promise<number> => {
    const res = await fetch(r.url, { headers: { authorization: `Bearer ${r.key}` } });
    const text = await res.text();
    if (res.status !== 200) throw new HarnessError(`GET ${r.url} answered ${res.status}: ${text.slice(0, 300)}`);
    return rowsOf(text);
  };
  const rows: number[] = [];
  for (const r of requests) rows.push(await get(r), await get(r)); // the statement and its pages, warmed
  const pids = await Promise.all(requests.map(servingPids));
  const wall: number[][] = requests.map(() => []);
  const cpu: number[][] = requests.map(() => []);
  const start = performance.now();
  for (let n = 0; n < MAX_REQUESTS && (n < MIN_REQUESTS || performance.now() - start < maxMs); n++) {
    for (const [i, r] of requests.entries()) {
      const cpuNs = () => pids[i]!.reduce((sum, pid) => sum + threadsCpuNs(pid), 0);
      const c0 = cpuNs();
      const t0 = performance.now();
      await get(r);
      wall[i]!.push(performance.now() - t0);
      cpu[i]!.push((cpuNs() - c0) / 1000);
    }
  }
  return requests.map((_, i) => ({ medianMs: median(wall[i]!), cpuUs: median(cpu[i]!), requests: wall[i]!.length, rows: rows[2 * i]! }));
}

/** A branch of `size` tickets of history in `server`'s store, and the filters to ask it. */
async function historyIn(server: Readybell, size: number, now: number): Promise<{ key: string; filters: Filter[]; nodePid: number }> {
  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: server.dataDir, ...server.store.env }));
  try {
    const tenant = await db.write(async (tx) => {
      const account = await createAccount(tx, { name: 'bench history', plan: 'pro' }, now);
      const branch = await createBranch(tx, { accountId: account.id, name: 'bench history' }, now);
      await insertQueue(tx, { branchId: branch.id, name: 'B', createdAt: now });
      return { branchId: branch.id, key: (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key };
    });
    await fillHistory(db, { branchId: tenant.branchId, mode: 'test', newestAt: now, everyMs: EVERY_MS, open: OPEN, tag: 0 }, 0, size);
    const idOf = async (s: number): Promise<string> => {
      const res = await fetch(`${server.url}/v1/tickets?external_ref=order-${s}`, { headers: { authorization: `Bearer ${tenant.key}` } });
      const id = ((await res.json()) as { data: Array<{ id: string }> }).data[0]?.id;
      if (id === undefined) throw new HarnessError(`ticket order-${s} of the history is not listed`);
      return id;
    };
    return { key: tenant.key, filters: filters(now, { mid: await idOf(5_000), openPageEnd: await idOf(9) }), nodePid: nodePidOf(server) };
  } finally {
    await db.close();
  }
}

export async function storeLike(label: string, dataDir: string): Promise<StoreTarget> {
  if (label === 'embedded') return embeddedTarget(dataDir);
  const url = process.env['BENCH_DATABASE_URL'];
  if (url === undefined) throw new HarnessError('a second PostgreSQL store needs BENCH_DATABASE_URL');
  return postgresTarget(url);
}

export const history: Scenario = {
  name: 'history',
  kind: 'readybell',
  async run({ opts, server, report }: ReadybellContext): Promise<Row[]> {
    const label = server.store.label;
    if (!Number.isInteger(LARGE) || LARGE <= SMALL) throw new HarnessError(`BENCH_HISTORY_TICKETS must be a whole number above ${SMALL}`);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rb-bench-small-'));
    let target: StoreTarget | null = null;
    let small: Readybell | null = null;
    try {
      target = await storeLike(label, dataDir);
      small = await launchReadybell({ repoRoot: opts.repoRoot, dataDir, store: target, cpuProfDir: opts.cpuProfDir });
      await small.start();
      const now = Date.now();
      const stores: Array<Awaited<ReturnType<typeof historyIn>>> = [];
      for (const [s, size] of [
        [small, SMALL],
        [server, LARGE],
      ] as const) {
        const t0 = performance.now();
        stores.push(await historyIn(s, size, now));
        report.log(
          `${label}: history, a store of ${size.toLocaleString('en')} tickets written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
      }
      const servers = [small, server];
      const turns = (i: number): Request[] =>
        stores.map((st, j) => {
          const q = st.filters[i]!.query;
          return { url: `${servers[j]!.url}/v1/tickets${q === '' ? '' : `?${q}`}`, key: st.key, server: servers[j]!, nodePid: st.nodePid };
        });
      const list = stores[0]!.filters;
      // An unmeasured pass first: the first filters measured must not pay for the JIT's warm-up,
      // nor for reading the freshly written pages into the caches.
      for (const i of list.keys()) await measureInTurn(turns(i), WARMUP_MS);
      report.log(`${label}: history, every filter on both stores in turn`);
      const samples: Array<readonly [Sample, Sample]> = [];
      for (const [i, f] of list.entries()) {
        const [a, b] = (await measureInTurn(turns(i))) as [Sample, Sample];
        if (a.rows !== b.rows)
          throw new HarnessError(
            `${f.label}: ${a.rows} tickets at ${SMALL} but ${b.rows} at ${LARGE}; the filters must see the same recent days`,
          );
        samples.push([a, b] as const);
      }

      const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
      const [S, L] = [k(SMALL), k(LARGE)];
      const header = [
        'filter',
        'rows',
        `ms ${S}`,
        `ms ${L}`,
        `ms ${L}/${S}`,
        `CPU µs ${S}`,
        `CPU µs ${L}`,
        `CPU ${L}/${S}`,
        `requests ${L}`,
      ];
      let outside = 0;
      const body = list.map((f, i) => {
        const [a, b] = samples[i]!;
        const ratio = b.cpuUs / a.cpuUs;
        const within = Math.abs(ratio - 1) <= TOLERANCE;
        if (!within) outside += 1;
        return [
          f.label,
          String(a.rows),
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
        `history (${label}): GET /v1/tickets on a store of ${S} tickets and one of ${L}, sequential requests taking turns between them.`,
        `  Medians per request of the wall time and of the CPU the server spent (${label === 'postgres' ? 'the node and its PostgreSQL backends' : 'every thread of the node'}); * = CPU ratio outside ±${TOLERANCE * 100} %`,
        ...[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].map((x) => `  ${x}`),
        `  ${outside === 0 ? '[ met ]' : '[MISSED]'} every filter's CPU at ${L} within ±${TOLERANCE * 100} % of its CPU at ${S} (${label}): ${outside} outside`,
        '',
      );
      const worst = samples.map((p) => p[1]).reduce((w, x) => (x.cpuUs > w.cpuUs ? x : w));
      return [
        {
          scenario: `history ${L}, costliest filter`,
          store: label,
          rps: 1000 / worst.medianMs,
          p50: Number(worst.medianMs.toFixed(2)),
          p99: Number(worst.medianMs.toFixed(2)),
          errors: 0,
          cpuUs: worst.cpuUs,
          note: 'sequential requests; see the history table below',
        },
      ];
    } finally {
      if (small !== null) await small.stop().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
      if (target !== null) await target.cleanup();
    }
  },
};
