// Several readybell nodes on one throw-away PostgreSQL database and one Redis, as a load balancer
// sees them: identical `readybell serve` processes sharing a REDIS_KEY_PREFIX of their own (so
// a bench run shares no bucket, presence or channel with tests using the same Redis), each
// started and stopped on its own so a scenario can measure one node and then two.
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { launchReadybell, type Readybell } from './readybell.ts';
import { postgresTarget, type StoreTarget } from './stores.ts';
import { authHeaders } from './api.ts';
import { measure } from './load.ts';
import { HarnessError } from './proc.ts';

export type BenchCluster = {
  nodes: Readybell[];
  store: StoreTarget;
  databaseUrl: string;
  /**
   * ANALYZE, as autovacuum does within about a minute on a live database. Before it, PostgreSQL
   * plans a ticket lookup by id on a never-analysed table through tickets_queue (branch, mode,
   * queue, id) with `queue` unconstrained — reading every index entry of the branch — instead of
   * tickets_list or the primary key: a ready would cost time proportional to the tickets made
   * seconds earlier by the bench itself.
   */
  analyze(): Promise<void>;
  /** Runs one statement on the bench's database (the statistics phase's table settings). */
  exec(sql: string): Promise<Array<Record<string, unknown>>>;
  /** Display numbers given twice to open tickets tagged `tag` (must be 0: the counter row is shared). */
  duplicateNumbers(tag: string): Promise<number>;
  close(): Promise<void>;
};

type ClusterOptions = { repoRoot: string; pgUrl: string; redisUrl: string; count: number; cpuProfDir: string | null };

export async function launchCluster(opts: ClusterOptions): Promise<BenchCluster> {
  await checkRedis(opts.redisUrl);
  const pgTarget = await postgresTarget(opts.pgUrl);
  const prefix = `rb-bench-${randomBytes(4).toString('hex')}:`;
  const store: StoreTarget = {
    ...pgTarget,
    label: 'pg+redis',
    env: { ...pgTarget.env, REDIS_URL: opts.redisUrl, REDIS_KEY_PREFIX: prefix },
  };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rb-bench-cluster-'));
  const nodes: Readybell[] = [];
  const close = async (): Promise<void> => {
    for (const n of nodes) await n.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    await pgTarget.cleanup();
    await dropRedisKeys(opts.redisUrl, prefix).catch((err: unknown) =>
      console.error(`warning: Redis keys ${prefix}* left behind: ${(err as Error).message}`),
    );
  };
  try {
    // Each launch runs `readybell demo` on the shared database: the first makes the account, the
    // others only issue another test key for the same branch, so every node serves one tenant.
    for (let i = 0; i < opts.count; i++)
      nodes.push(await launchReadybell({ repoRoot: opts.repoRoot, dataDir, store, cpuProfDir: opts.cpuProfDir }));
  } catch (err) {
    await close();
    throw err;
  }
  const databaseUrl = pgTarget.env['DATABASE_URL']!;
  return {
    nodes,
    store,
    databaseUrl,
    async analyze() {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        await c.query('ANALYZE');
      } finally {
        await c.end();
      }
    },
    async exec(sql) {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        return (await c.query(sql)).rows;
      } finally {
        await c.end();
      }
    },
    async duplicateNumbers(tag) {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        const r = await c.query<{ n: string }>(
          'SELECT COUNT(*) - COUNT(DISTINCT (queue, number)) AS n FROM tickets WHERE external_ref = $1 AND closed_at IS NULL',
          [tag],
        );
        return Number(r.rows[0]?.n ?? 0);
      } finally {
        await c.end();
      }
    },
    close,
  };
}

async function checkRedis(url: string): Promise<void> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    await r.ping();
  } catch (err) {
    throw new HarnessError(`cannot reach Redis at BENCH_REDIS_URL: ${(err as Error).message}`);
  } finally {
    r.disconnect();
  }
}

async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await r.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

export type BenchTicket = { id: string; path: string };

/**
 * Creates `count` tickets through all `nodes`, dealt over `queues` in turn, and returns their ids
 * and page paths. Any non-201 is a harness failure: the runs that use them rely on every one.
 */
export async function createTickets(nodes: Readybell[], queues: readonly string[], count: number, tag: string): Promise<BenchTicket[]> {
  const out: BenchTicket[] = [];
  let n = 0;
  let unreadable = 0;
  const m = await measure({
    url: nodes.map((s) => `${s.url}/v1/tickets`),
    method: 'POST',
    headers: authHeaders(nodes[0]!, true),
    setupRequest: (req) => ({ ...req, body: JSON.stringify({ queue: queues[n++ % queues.length], external_ref: tag }) }),
    connections: Math.min(100, count),
    duration: 0,
    amount: count,
    onResponse: (status, body) => {
      if (status !== 201) return;
      try {
        const t = JSON.parse(body) as { id: string; url: string };
        out.push({ id: t.id, path: new URL(t.url).pathname });
      } catch {
        unreadable += 1;
      }
    },
  });
  if (out.length !== count) {
    const codes = Object.entries(m.statusCounts)
      .map(([c, k]) => `${c}×${k}`)
      .join(', ');
    throw new HarnessError(`creating ${count} tickets got ${out.length} (${codes}; ${m.errors} errors, ${unreadable} unreadable bodies)`);
  }
  return out;
}
