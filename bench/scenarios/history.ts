// What a list costs as a branch's history grows: every filter of GET /v1/tickets on a branch of
// 10,000 tickets and on one of 1,000,000 (a year of closed tickets behind the same recent days),
// printing each filter's medians and the 1M/10k ratio. The two branches share the store and are
// asked in alternation, request by request, so that both see the same load from whatever else
// runs on this machine (measured one after the other, minutes apart, the same plan read up to
// twice the CPU on a busy afternoon). The tickets are written straight into the store
// (test/helpers/ticket-history.ts): creating a million through the API would take hours.
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import { insertQueue } from '../../src/store/tenancy.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { fillHistory } from '../../test/helpers/ticket-history.ts';
import { HarnessError } from '../lib/proc.ts';
import { backendPids, threadsCpuNs } from '../lib/cpu.ts';
import { pidListeningOn } from '../lib/sse.ts';
import type { Readybell } from '../lib/readybell.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

const SMALL = 10_000;
const LARGE = Number(process.env['BENCH_HISTORY_TICKETS'] || 1_000_000);
/** A million tickets a year, so SMALL is the last few days and LARGE (by default) the year. */
const EVERY_MS = Math.round((365 * 24 * 3600_000) / 1_000_000);
const OPEN = 20;
/** Per filter and branch: stop after this many requests or this long, whichever comes first. */
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
    f(`created_after=${iso(newestAt - 2 * day)}&created_before=${iso(newestAt - day)}`, 'created_after=(2 days ago)&created_before=(1 day ago)'),
    f(`created_before=${iso(newestAt - 3 * day)}`, 'created_before=(3 days ago)'),
    f(`starting_after=${ids.mid}`, 'starting_after=(ticket 5,000)'),
    f(`status=created,ready&starting_after=${ids.openPageEnd}`, 'status=created,ready&starting_after=(ticket 9)'),
    f(`status=collected&starting_after=${ids.mid}`, 'status=collected&starting_after=(ticket 5,000)'),
    f(`queue=B&starting_after=${ids.mid}`, 'queue=B&starting_after=(ticket 5,000)'),
  ];
}

type Sample = { medianMs: number; cpuUs: number; requests: number; rows: number };
type Branch = { key: string; query: string };

/** The processes that serve a request: the node and, on PostgreSQL, the backends of its pool. */
async function servingPids(server: Readybell, nodePid: number): Promise<number[]> {
  const url = server.store.env['DATABASE_URL'];
  return url === undefined ? [nodePid] : [nodePid, ...(await backendPids(url))];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * One filter on each branch, sequential requests on one connection taking turns: each request's
 * wall time and the CPU its servers spent on it.
 */
async function measureFilter(server: Readybell, nodePid: number, branches: Branch[], maxMs = MAX_MS): Promise<Sample[]> {
  const get = async (b: Branch): Promise<number> => {
    const url = `${server.url}/v1/tickets${b.query === '' ? '' : `?${b.query}`}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${b.key}` } });
    const text = await res.text();
    if (res.status !== 200) throw new HarnessError(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
    return (JSON.parse(text) as { data: unknown[] }).data.length;
  };
  const rows: number[] = [];
  for (const b of branches) rows.push(await get(b), await get(b)); // the statement and its pages, warmed
  const pids = await servingPids(server, nodePid);
  const cpuNs = () => pids.reduce((sum, pid) => sum + threadsCpuNs(pid), 0);
  const wall: number[][] = branches.map(() => []);
  const cpu: number[][] = branches.map(() => []);
  const start = performance.now();
  for (let n = 0; n < MAX_REQUESTS && (n < MIN_REQUESTS || performance.now() - start < maxMs); n++) {
    for (const [i, b] of branches.entries()) {
      const c0 = cpuNs();
      const t0 = performance.now();
      await get(b);
      wall[i]!.push(performance.now() - t0);
      cpu[i]!.push((cpuNs() - c0) / 1000);
    }
  }
  return branches.map((_, i) => ({ medianMs: median(wall[i]!), cpuUs: median(cpu[i]!), requests: wall[i]!.length, rows: rows[2 * i]! }));
}

export const history: Scenario = {
  name: 'history',
  kind: 'readybell',
  async run({ server, report }: ReadybellContext): Promise<Row[]> {
    const label = server.store.label;
    if (!Number.isInteger(LARGE) || LARGE <= SMALL) throw new HarnessError(`BENCH_HISTORY_TICKETS must be a whole number above ${SMALL}`);
    const pid = pidListeningOn(Number(new URL(server.url).port));
    if (pid === null) throw new HarnessError('cannot find the readybell process, whose CPU this scenario measures');
    const db = openDb(loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: server.dataDir, ...server.store.env }));
    const out: Row[] = [];
    try {
      const now = Date.now();
      const sizes = [SMALL, LARGE];
      const tenants: Array<{ key: string; filters: Filter[] }> = [];
      for (const [tag, size] of sizes.entries()) {
        const tenant = await db.write(async (tx) => {
          const account = await createAccount(tx, { name: `bench history ${size}`, plan: 'pro' }, now);
          const branch = await createBranch(tx, { accountId: account.id, name: `bench history ${size}` }, now);
          await insertQueue(tx, { branchId: branch.id, name: 'B', createdAt: now });
          return { branchId: branch.id, key: (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key };
        });
        const t0 = performance.now();
        await fillHistory(db, { branchId: tenant.branchId, mode: 'test', newestAt: now, everyMs: EVERY_MS, open: OPEN, tag }, 0, size);
        report.log(`${label}: history, a branch of ${size.toLocaleString('en')} tickets written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        const idOf = async (s: number): Promise<string> => {
          const res = await fetch(`${server.url}/v1/tickets?external_ref=order-${s}`, { headers: { authorization: `Bearer ${tenant.key}` } });
          const id = ((await res.json()) as { data: Array<{ id: string }> }).data[0]?.id;
          if (id === undefined) throw new HarnessError(`ticket order-${s} of the history is not listed`);
          return id;
        };
        tenants.push({ key: tenant.key, filters: filters(now, { mid: await idOf(5_000), openPageEnd: await idOf(9) }) });
      }
      const labels = tenants[0]!.filters.map((f) => f.label);
      const branchesOf = (i: number): Branch[] => tenants.map((t) => ({ key: t.key, query: t.filters[i]!.query }));

      // An unmeasured pass first: the first filters measured must not pay for the JIT's warm-up,
      // nor for reading the freshly written pages into the caches.
      for (const i of labels.keys()) await measureFilter(server, pid, branchesOf(i), WARMUP_MS);
      report.log(`${label}: history, every filter on both branches in turn`);
      const samples: Sample[][] = [];
      for (const [i, l] of labels.entries()) {
        const pair = await measureFilter(server, pid, branchesOf(i));
        if (pair[0]!.rows !== pair[1]!.rows) throw new HarnessError(`${l}: ${pair[0]!.rows} tickets at ${SMALL} but ${pair[1]!.rows} at ${LARGE}; the filters must see the same recent days`);
        samples.push(pair);
      }

      const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
      const [S, L] = [k(SMALL), k(LARGE)];
      const header = ['filter', 'rows', `ms ${S}`, `ms ${L}`, `ms ${L}/${S}`, `CPU µs ${S}`, `CPU µs ${L}`, `CPU ${L}/${S}`, `requests ${L}`];
      let outside = 0;
      const body = labels.map((l, i) => {
        const [a, b] = samples[i] as [Sample, Sample];
        const ratio = b.cpuUs / a.cpuUs;
        const within = Math.abs(ratio - 1) <= TOLERANCE;
        if (!within) outside += 1;
        return [
          l, String(a.rows), a.medianMs.toFixed(2), b.medianMs.toFixed(2), (b.medianMs / a.medianMs).toFixed(2),
          a.cpuUs.toFixed(0), b.cpuUs.toFixed(0), `${ratio.toFixed(2)}${within ? '' : ' *'}`, String(b.requests),
        ];
      });
      const widths = header.map((c, i) => Math.max(c.length, ...body.map((r) => r[i]!.length)));
      const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
      report.notes.push(
        `history (${label}): GET /v1/tickets on a branch of ${S} tickets and one of ${L}, sequential requests on one connection taking turns.`,
        `  Medians per request of the wall time and of the CPU the server spent (${label === 'postgres' ? 'the node and its PostgreSQL backends' : 'every thread of the node'}); * = CPU ratio outside ±${TOLERANCE * 100} %`,
        ...[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].map((x) => `  ${x}`),
        `  ${outside === 0 ? '[ met ]' : '[MISSED]'} every filter's CPU at ${L} within ±${TOLERANCE * 100} % of its CPU at ${S} (${label}): ${outside} outside`,
        '',
      );
      const worst = samples.map((p) => p[1]!).reduce((w, x) => (x.cpuUs > w.cpuUs ? x : w));
      out.push({
        scenario: `history ${L}, costliest filter`, store: label, rps: 1000 / worst.medianMs, p50: Number(worst.medianMs.toFixed(2)),
        p99: Number(worst.medianMs.toFixed(2)), errors: 0, cpuUs: worst.cpuUs, note: 'sequential requests; see the history table below',
      });
    } finally {
      await db.close();
    }
    return out;
  },
};
