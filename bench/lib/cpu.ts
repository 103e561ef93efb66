// CPU time spent per request by each party of a run: the readybell nodes, the PostgreSQL backends
// serving the bench's own database, and the bench process (the load generator). On a machine
// shared with other work, req/s says how much CPU the run happened to get; CPU per request says
// what a request costs, which is what bounds the rate once the cores are the limit.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** User and system CPU of a process in ms (Linux /proc), or null once it is gone or unreadable. */
function cpuOf(pid: number): { user: number; system: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields are counted after its last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(rest[11]) * TICK_MS, system: Number(rest[12]) * TICK_MS };
  } catch {
    return null;
  }
}

const cpuMsOf = (pid: number): number | null => {
  const c = cpuOf(pid);
  return c === null ? null : c.user + c.system;
};

export async function backendPids(databaseUrl: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    // Client backends only: autovacuum workers come and go on their own schedule.
    const r = await c.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    return r.rows.map((x) => Number(x.pid));
  } finally {
    await c.end();
  }
}

export type CpuPerRequest = {
  node: number;
  /** the share of the nodes' CPU spent in the kernel (sockets: every round trip is a write and a wake-up) */
  nodeKernelShare: number;
  postgres: number;
  bench: number;
};

/** Starts measuring; the returned function ends it and divides by the requests completed. */
export async function startCpuMeter(
  nodePids: readonly number[],
  databaseUrl: string,
): Promise<(requests: number) => Promise<CpuPerRequest | null>> {
  const before = new Map<number, number>();
  for (const pid of [...nodePids, ...(await backendPids(databaseUrl))]) before.set(pid, cpuMsOf(pid) ?? 0);
  const nodeSystem = (): number => nodePids.reduce((s, p) => s + (cpuOf(p)?.system ?? 0), 0);
  const system0 = nodeSystem();
  const bench0 = process.cpuUsage();
  return async (requests) => {
    const bench = process.cpuUsage(bench0);
    if (requests <= 0 || nodePids.length === 0) return null;
    const used = (pid: number): number => Math.max(0, (cpuMsOf(pid) ?? 0) - (before.get(pid) ?? 0));
    // A backend the pool opened during the run counts from its start, which was within the run.
    const pgPids = await backendPids(databaseUrl);
    const sum = (pids: readonly number[]): number => pids.reduce((s, p) => s + used(p), 0);
    const node = sum(nodePids);
    return {
      node: node / requests,
      nodeKernelShare: node > 0 ? (nodeSystem() - system0) / node : 0,
      postgres: sum(pgPids) / requests,
      bench: (bench.user + bench.system) / 1000 / requests,
    };
  };
}

export const describeCpu = (c: CpuPerRequest): string =>
  `CPU/request: readybell ${c.node.toFixed(2)} ms (${(c.nodeKernelShare * 100).toFixed(0)}% kernel), PostgreSQL ${c.postgres.toFixed(2)} ms, load generator ${c.bench.toFixed(2)} ms`;

/**
 * CPU of one server process per completed request, in µs: what a request costs the server
 * whatever share of the cores the run got, so runs on a busy machine stay comparable.
 */
export function startProcessCpu(pid: number | null | undefined): (requests: number) => number | null {
  if (pid === null || pid === undefined) return () => null;
  const before = cpuMsOf(pid);
  return (requests) => {
    const after = cpuMsOf(pid);
    if (before === null || after === null || requests <= 0) return null;
    return ((after - before) * 1000) / requests;
  };
}

/**
 * CPU time in ns used so far by every thread of `pid`, from the scheduler's own accounting
 * (/proc/<pid>/task/<tid>/schedstat). Exact enough to time one request, where /proc/<pid>/stat
 * counts 10 ms ticks; and unlike wall time it does not count waiting for a core another process
 * holds. 0 for a process that is gone.
 */
export function threadsCpuNs(pid: number): number {
  let total = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    return 0;
  }
  return total;
}
