// What a list costs as a branch's history grows: every filter of GET /v1/tickets on a branch
// with 10,000 tickets, then on the same branch grown to 1,000,000 (a year of closed tickets
// behind the same recent days), printing each filter's median latency and the 1M/10k ratio.
// The tickets are written straight into the store (test/helpers/ticket-history.ts): creating a
// million through the API would take hours. The branch is a tenant of its own, so what earlier
// scenarios created elsewhere in the store does not count.
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import { insertQueue } from '../../src/store/tenancy.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { fillHistory, type History } from '../../test/helpers/ticket-history.ts';
import { HarnessError } from '../lib/proc.ts';
import { backendPids, threadsCpuNs } from '../lib/cpu.ts';
import { pidListeningOn } from '../lib/sse.ts';
import type { Readybell } from '../lib/readybell.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

const SMALL = 10_000;
const LARGE = Number(process.env['BENCH_HISTORY_TICKETS'] || 1_000_000);
/** A year of tickets at LARGE per year, so SMALL is the last few days. */
const EVERY_MS = Math.round((365 * 24 * 3600_000) / 1_000_000);
const OPEN = 20;
/** Per filter and size: stop after this many requests or this long, whichever comes first. */
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

/** The processes that serve a request: the node and, on PostgreSQL, the backends of its pool. */
async function servingPids(server: Readybell, nodePid: number): Promise<number[]> {
  const url = server.store.env['DATABASE_URL'];
  return url === undefined ? [nodePid] : [nodePid, ...(await backendPids(url))];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Sequential requests on one connection: each one's wall time and the CPU its servers spent on it. */
async function measureFilter(server: Readybell, key: string, nodePid: number, query: string, maxMs = MAX_MS): Promise<Sample> {
  const url = `${server.url}/v1/tickets${query === '' ? '' : `?${query}`}`;
  const get = async (): Promise<number> => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    if (res.status !== 200) throw new HarnessError(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
    return (JSON.parse(text) as { data: unknown[] }).data.length;
  };
  const rows = await get(); // warms the statement and the pages it reads
  await get();
  const pids = await servingPids(server, nodePid);
  const cpuNs = () => pids.reduce((sum, pid) => sum + threadsCpuNs(pid), 0);
  const wall: number[] = [];
  const cpu: number[] = [];
  const start = performance.now();
  while (wall.length < MAX_REQUESTS && (wall.length < MIN_REQUESTS || performance.now() - start < maxMs)) {
    const c0 = cpuNs();
    const t0 = performance.now();
    await get();
    wall.push(performance.now() - t0);
    cpu.push((cpuNs() - c0) / 1000);
  }
  return { medianMs: median(wall), cpuUs: median(cpu), requests: wall.length, rows };
}

export const history: Scenario = {
  name: 'history',
  kind: 'readybell',
  async run({ server, report }: ReadybellContext): Promise<Row[]> {
    const label = server.store.label;
    if (!Number.isInteger(LARGE) || LARGE <= SMALL) throw new HarnessError(`BENCH_HISTORY_TICKETS must be a whole number above ${SMALL}`);
    const db = openDb(loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: server.dataDir, ...server.store.env }));
    const out: Row[] = [];
    try {
      const now = Date.now();
      const tenant = await db.write(async (tx) => {
        const account = await createAccount(tx, { name: 'bench history', plan: 'pro' }, now);
        const branch = await createBranch(tx, { accountId: account.id, name: 'bench history' }, now);
        await insertQueue(tx, { branchId: branch.id, name: 'B', createdAt: now });
        return { branchId: branch.id, key: (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key };
      });
      const h: History = { branchId: tenant.branchId, mode: 'test', newestAt: now, everyMs: EVERY_MS, open: OPEN };
      const pid = pidListeningOn(Number(new URL(server.url).port));
      if (pid === null) throw new HarnessError('cannot find the readybell process, whose CPU this scenario measures');

      let t0 = performance.now();
      await fillHistory(db, h, 0, SMALL);
      report.log(`${label}: history, ${SMALL.toLocaleString('en')} tickets written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const idOf = async (s: number): Promise<string> => {
        const res = await fetch(`${server.url}/v1/tickets?external_ref=order-${s}`, { headers: { authorization: `Bearer ${tenant.key}` } });
        const id = ((await res.json()) as { data: Array<{ id: string }> }).data[0]?.id;
        if (id === undefined) throw new HarnessError(`ticket order-${s} of the history is not listed`);
        return id;
      };
      const list = filters(now, { mid: await idOf(5_000), openPageEnd: await idOf(9) });

      // An unmeasured pass before each measured one: the first filters measured must not pay for
      // the JIT's warm-up, nor for reading the freshly written pages into the caches.
      for (const f of list) await measureFilter(server, tenant.key, pid, f.query, WARMUP_MS);
      const small = new Map<string, Sample>();
      for (const f of list) small.set(f.label, await measureFilter(server, tenant.key, pid, f.query));
      t0 = performance.now();
      await fillHistory(db, h, SMALL, LARGE);
      report.log(`${label}: history grown to ${LARGE.toLocaleString('en')} tickets in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      for (const f of list) await measureFilter(server, tenant.key, pid, f.query, WARMUP_MS);
      const large = new Map<string, Sample>();
      for (const f of list) {
        const a = small.get(f.label)!;
        const b = await measureFilter(server, tenant.key, pid, f.query);
        large.set(f.label, b);
        if (a.rows !== b.rows) throw new HarnessError(`${f.label}: ${a.rows} tickets at ${SMALL} but ${b.rows} at ${LARGE}; the filters must see the same recent days`);
      }

      const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
      const [S, L] = [k(SMALL), k(LARGE)];
      const header = ['filter', 'rows', `ms ${S}`, `ms ${L}`, `ms ${L}/${S}`, `CPU µs ${S}`, `CPU µs ${L}`, `CPU ${L}/${S}`, `requests ${L}`];
      let outside = 0;
      const body = list.map((f) => {
        const a = small.get(f.label)!;
        const b = large.get(f.label)!;
        const ratio = b.cpuUs / a.cpuUs;
        const within = Math.abs(ratio - 1) <= TOLERANCE;
        if (!within) outside += 1;
        return [
          f.label, String(a.rows), a.medianMs.toFixed(2), b.medianMs.toFixed(2), (b.medianMs / a.medianMs).toFixed(2),
          a.cpuUs.toFixed(0), b.cpuUs.toFixed(0), `${ratio.toFixed(2)}${within ? '' : ' *'}`, String(b.requests),
        ];
      });
      const widths = header.map((c, i) => Math.max(c.length, ...body.map((r) => r[i]!.length)));
      const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
      report.notes.push(
        `history (${label}): GET /v1/tickets, sequential requests on one connection, ${S} then ${L} tickets in the branch. Medians per request of`,
        `  the wall time and of the CPU the server spent (${label === 'postgres' ? 'the node and its PostgreSQL backends' : 'every thread of the node'}); * = CPU ratio outside ±${TOLERANCE * 100} %`,
        ...[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].map((l) => `  ${l}`),
        `  ${outside === 0 ? '[ met ]' : '[MISSED]'} every filter's CPU at ${L} within ±${TOLERANCE * 100} % of its CPU at ${S} (${label}): ${outside} outside`,
        '',
      );
      const worst = list.map((f) => large.get(f.label)!).reduce((w, x) => (x.cpuUs > w.cpuUs ? x : w));
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
