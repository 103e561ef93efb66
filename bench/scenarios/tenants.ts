// Cost does not grow with tenants (issue 34): creates, then readies of the tickets they made,
// spread over BENCH_TENANT_BRANCHES branches (10,000), each request with its branch's key, cost
// within 20 % per request of the same load on one branch. The branches are made first, straight
// in the store the server uses (an account, a branch and a test key each, in transactions of
// BATCH), as the CLI would, a thousand times faster. Per request: the server's CPU, plus
// PostgreSQL's on that store. The target line compares the two per kind of request.
import { measure, describeErrors, type LoadOptions } from '../lib/load.ts';
import { startCpuMeter, startProcessCpu } from '../lib/cpu.ts';
import { pidListeningOn } from '../lib/sse.ts';
import { call } from '../lib/api.ts';
import type { Readybell } from '../lib/readybell.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';
import type { Db } from '../../src/core/db.ts';
import { PostgresDb } from '../../src/store/postgres/postgres-db.ts';
import { SqliteDb } from '../../src/store/sqlite/sqlite-db.ts';
import { sqliteFile } from '../../src/store/open-db.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';

export const TENANTS_SCENARIO = 'tenants';
const BATCH = 200;
const branchCount = (): number => Number(process.env['BENCH_TENANT_BRANCHES'] ?? 10_000);

/** What one set of branches was measured at: per request, creates and readies. */
export const tenantRow = (kind: 'create' | 'ready', branches: number): string => `${TENANTS_SCENARIO}: ${kind}, ${branches} branch(es)`;

function openStore(server: Readybell): Db {
  const url = server.store.env['DATABASE_URL'];
  if (url !== undefined) return new PostgresDb({ url });
  return new SqliteDb({ file: sqliteFile(server.dataDir), synchronous: 'NORMAL', maxBatch: BATCH });
}

/** `count` branches, each of its own account, with a test key: branch id → key. */
async function makeBranches(server: Readybell, count: number): Promise<Map<string, string>> {
  const db = openStore(server);
  const keys = new Map<string, string>();
  try {
    for (let made = 0; made < count; made += BATCH) {
      const now = Date.now();
      const n = Math.min(BATCH, count - made);
      await db.write(async (tx) => {
        for (let i = 0; i < n; i++) {
          const account = await createAccount(tx, { name: `Bench tenant ${made + i}`, plan: 'pro' }, now);
          const branch = await createBranch(tx, { accountId: account.id, name: `Bench branch ${made + i}` }, now);
          keys.set(branch.id, (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key);
        }
      });
    }
  } finally {
    await db.close();
  }
  return keys;
}

type Measured = { rps: number; p50: number; p99: number; errors: number; cpuUs: number | null; dbCpuUs: number | null; note: string };

async function measured(server: Readybell, load: LoadOptions): Promise<Measured> {
  const pid = pidListeningOn(Number(new URL(server.url).port));
  const cpu = startProcessCpu(pid);
  const databaseUrl = server.store.env['DATABASE_URL'];
  const pgCpu = databaseUrl === undefined || pid === null ? null : await startCpuMeter([pid], databaseUrl);
  const m = await measure(load);
  const cpuUs = cpu(m.completed);
  const dbCpuUs = pgCpu === null ? null : ((await pgCpu(m.completed))?.postgres ?? 0) * 1000;
  return { rps: m.rps, p50: m.p50, p99: m.p99, errors: m.errors, cpuUs, dbCpuUs, note: describeErrors(m) };
}

export const tenants: Scenario = {
  name: TENANTS_SCENARIO,
  kind: 'readybell',
  async run({ opts, server, report }: ReadybellContext): Promise<Row[]> {
    const count = branchCount();
    const started = Date.now();
    report.log(`${server.store.label}: making ${count} branches`);
    const many = await makeBranches(server, count);
    report.log(`${server.store.label}: made in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const home = (await call(server, 'POST', '/v1/tickets', {}, 201))['branch'] as string;
    const rows: Row[] = [];
    for (const keys of [new Map([[home, server.key]]), many]) {
      const branches = [...keys.keys()];
      const label = keys.size;
      // Creates: each request with the next branch's key, in turn.
      let turn = 0;
      const tickets: Array<{ id: string; key: string }> = [];
      const create: LoadOptions = {
        url: `${server.url}/v1/tickets`,
        method: 'POST',
        connections: opts.connections,
        duration: opts.duration,
        body: '{}',
        setupRequest: (req) => {
          const key = keys.get(branches[turn++ % branches.length]!)!;
          return { ...req, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
        },
        onResponse: (status, body) => {
          if (status !== 201) return;
          const t = JSON.parse(body) as { id: string; branch: string };
          tickets.push({ id: t.id, key: keys.get(t.branch)! });
        },
      };
      report.log(`${server.store.label}: tenants, creates over ${label} branch(es), ${opts.duration} s`);
      const c = await measured(server, create);
      rows.push({ scenario: tenantRow('create', label), store: server.store.label, ...c });
      // Readies of the tickets just made, each with its branch's key; never one id twice.
      let next = 0;
      const ready: LoadOptions = {
        url: server.url,
        method: 'POST',
        connections: opts.connections,
        duration: opts.duration,
        maxRequests: Math.max(1, tickets.length - opts.connections),
        setupRequest: (req) => {
          const t = tickets[next++ % tickets.length]!;
          return { ...req, path: `/v1/tickets/${t.id}/ready`, headers: { authorization: `Bearer ${t.key}` } };
        },
      };
      report.log(`${server.store.label}: tenants, readies over ${label} branch(es), up to ${tickets.length} tickets`);
      const r = await measured(server, ready);
      rows.push({ scenario: tenantRow('ready', label), store: server.store.label, ...r });
    }
    return rows;
  },
};

/** The target line: per request, creates and readies over many branches vs one, per store. */
export function tenantTargets(rows: readonly Row[]): string[] {
  const count = branchCount();
  const lines: string[] = [];
  for (const store of [...new Set(rows.filter((r) => r.scenario.startsWith(TENANTS_SCENARIO)).map((r) => r.store))]) {
    const cost = (kind: 'create' | 'ready', branches: number): number | null => {
      const r = rows.find((x) => x.store === store && x.scenario === tenantRow(kind, branches));
      return r?.cpuUs == null ? null : r.cpuUs + (r.dbCpuUs ?? 0);
    };
    const parts: string[] = [];
    let met = true;
    for (const kind of ['create', 'ready'] as const) {
      const one = cost(kind, 1);
      const spread = cost(kind, count);
      if (one === null || spread === null || one <= 0) {
        parts.push(`${kind} not measured`);
        met = false;
        continue;
      }
      parts.push(`${kind} ${(spread / one).toFixed(2)}× (${(spread / 1000).toFixed(2)} vs ${(one / 1000).toFixed(2)} ms)`);
      met &&= spread <= 1.2 * one;
    }
    lines.push(
      `target: CPU per request over ${count} branches vs one branch (${store}): ${parts.join(', ')} (within 20%) ${met ? 'met' : 'missed'}`,
    );
  }
  if (lines.length === 0)
    lines.push(`target: CPU per request over ${count} branches vs one branch not measured (needs the tenants scenario) not measured`);
  return lines;
}
