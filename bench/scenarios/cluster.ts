// readybell as a cluster: PostgreSQL + Redis, measured with one node and then with two nodes
// sharing the same load (autocannon deals its connections over both), then the cross-node ring
// latency (ready on node A → `ring` on a page stream held by node B).
//
// Creates are measured on one queue and spread over 16: the queue's counter row is locked from
// the number's UPDATE to COMMIT (docs/decisions/0004-display-numbers.md), so one queue's creates
// run one after another however many nodes there are, each paying its round trips and the
// COMMIT's WAL flush while it holds the lock. Sixteen queues measure what the rest of the system
// allows. Needs BENCH_DATABASE_URL and BENCH_REDIS_URL; skipped (with a note) otherwise.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { authHeaders, call, idPool } from '../lib/api.ts';
import { measure, describeErrors, type Measurement } from '../lib/load.ts';
import { launchCluster, createTickets, type BenchCluster } from '../lib/cluster-nodes.ts';
import { crossNodeRing, percentile } from '../lib/cross-node-ring.ts';
import { HarnessError } from '../lib/proc.ts';
import { pidListeningOn } from '../lib/sse.ts';
import { describeCpu, startCpuMeter, type CpuPerRequest } from '../lib/cpu.ts';
import { pgbenchTpcb } from '../lib/pgbench.ts';
import { PGBENCH_SCENARIO } from '../lib/ready-targets.ts';
import type { Readybell } from '../lib/readybell.ts';
import type { Report, Row, Scenario, StandaloneContext } from './types.ts';

const SPREAD = Array.from({ length: 16 }, (_, i) => `Q${i}`);
const RINGS = Math.max(50, Number(process.env['BENCH_CLUSTER_RINGS'] ?? 1_000));
const OPEN_AT_ONCE = 50;
const TARGET_CREATE_RPS = 5_000;
const TARGET_RING_P99_MS = 15;
/** Ready tickets to pre-create per second of run, as a multiple of the measured create rate. */
const READY_HEADROOM = 1.5;

type Run = { ctx: StandaloneContext; cluster: BenchCluster; rows: Row[]; createRps: number };

const nodesLabel = (nodes: Readybell[]): string => (nodes.length === 1 ? '1 node' : `${nodes.length} nodes`);

/** Starts a CPU meter on `nodes` and the run's database, for `row`. */
async function meter(run: Run, nodes: Readybell[]): Promise<(m: Measurement) => Promise<CpuPerRequest | null>> {
  const pids = nodes.map((n) => pidListeningOn(Number(new URL(n.url).port))).filter((p): p is number => p !== null);
  const stop = await startCpuMeter(pids, run.cluster.databaseUrl);
  return (m) => stop(m.completed);
}

function row(run: Run, scenario: string, m: Measurement, cpu: CpuPerRequest | null, extra: string[] = []): Row {
  const r: Row = {
    scenario,
    store: run.cluster.store.label,
    rps: m.rps,
    p50: m.p50,
    p99: m.p99,
    errors: m.errors,
    // Every node's CPU per request, summed (the table's CPU column), and PostgreSQL's.
    cpuUs: cpu === null ? null : cpu.node * 1000,
    dbCpuUs: cpu === null ? null : cpu.postgres * 1000,
    note: [describeErrors(m), cpu === null ? '' : describeCpu(cpu), ...extra].filter(Boolean).join('; '),
  };
  run.rows.push(r);
  return r;
}

async function createRun(run: Run, nodes: Readybell[], queues: readonly string[]): Promise<Row> {
  const { opts, report } = run.ctx;
  const label = `create, ${nodesLabel(nodes)}, ${queues.length === 1 ? '1 queue' : `${queues.length} queues`}`;
  let n = 0;
  const load = (tag: string, duration: number) =>
    measure({
      url: nodes.map((s) => `${s.url}/v1/tickets`),
      method: 'POST',
      headers: authHeaders(nodes[0]!, true),
      // One queue: a fixed body, no per-request work in the load generator.
      ...(queues.length === 1
        ? { body: JSON.stringify({ queue: queues[0], external_ref: tag }) }
        : { setupRequest: (req) => ({ ...req, body: JSON.stringify({ queue: queues[n++ % queues.length], external_ref: tag }) }) }),
      connections: opts.connections,
      duration,
    });
  if (opts.warmup > 0) await load('bench-warmup', opts.warmup);
  const tag = `bench-${randomBytes(6).toString('hex')}`;
  report.log(`cluster: ${label}, ${opts.connections} connections, ${opts.duration} s`);
  const cpu = await meter(run, nodes);
  const m = await load(tag, opts.duration);
  const used = await cpu(m);
  // Every 201 was committed before it was sent; two nodes taking numbers from one counter row
  // must never hand out the same display number twice.
  const acknowledged = m.statusCounts['201'] ?? 0;
  const stored = await run.cluster.store.countTickets(tag);
  const duplicates = await run.cluster.duplicateNumbers(tag);
  if (stored < acknowledged) run.ctx.report.failures.push(`cluster ${label}: ${acknowledged} acknowledged, only ${stored} stored`);
  if (duplicates > 0) run.ctx.report.failures.push(`cluster ${label}: ${duplicates} display numbers given twice`);
  run.createRps = Math.max(run.createRps, m.rps);
  return row(run, label, m, used, [duplicates > 0 ? `${duplicates} duplicate display numbers` : '']);
}

async function readyRun(run: Run, nodes: Readybell[]): Promise<Row> {
  const { opts, report } = run.ctx;
  const label = `ready, ${nodesLabel(nodes)}`;
  const seconds = opts.duration + opts.warmup;
  const wanted = opts.readyTickets ?? Math.min(1_000_000, Math.max(5_000, Math.ceil(run.createRps * seconds * READY_HEADROOM)));
  report.log(`cluster: pre-creating ${wanted} tickets for ${label}`);
  const pool = idPool((await createTickets(nodes, SPREAD, wanted, 'bench-ready')).map((t) => t.id));
  await run.cluster.analyze();
  let exhausted = false;
  const load = (duration: number, share: number) =>
    measure({
      url: nodes.map((s) => s.url),
      method: 'POST',
      headers: authHeaders(nodes[0]!, false),
      connections: opts.connections,
      duration,
      // Each request uses one id and autocannon never sends more than this: no id is readied twice.
      maxRequests: Math.max(opts.connections, Math.floor(pool.remaining() * share) - opts.connections),
      setupRequest: (req) => {
        const id = pool.next();
        if (id === null) exhausted = true;
        return { ...req, path: `/v1/tickets/${id ?? 'tk_exhausted'}/ready` };
      },
    });
  if (opts.warmup > 0) await load(opts.warmup, opts.warmup / seconds);
  report.log(`cluster: ${label}, ${opts.connections} connections, up to ${opts.duration} s, ${pool.remaining()} tickets`);
  const cpu = await meter(run, nodes);
  const m = await load(opts.duration, 1);
  const used = await cpu(m);
  if (exhausted) report.failures.push(`cluster ${label}: ran out of ticket ids (bench bug)`);
  return row(run, label, m, used, [
    m.durationS < opts.duration - 0.5 ? `ran ${m.durationS.toFixed(1)} s: tickets ran out (raise BENCH_READY_TICKETS)` : '',
  ]);
}

/**
 * Tickets made for the statistics phase (the issue saw the unanalysed plan at about 6,000): a
 * quarter read by the GETs, then readied: a warm-up's share and each phase's.
 */
const STATS_TICKETS = 14_000;
const STATS_WARMUP_READIES = 1_000;

/**
 * GET and ready on a tickets table PostgreSQL has no statistics for (a new deployment's first busy
 * hour: autovacuum held off), then the same after ANALYZE. Lookups by id must not depend on
 * statistics (decision 0054): each costs the same (node + PostgreSQL CPU) in both phases.
 */
async function statisticsRun(run: Run, node: Readybell): Promise<void> {
  const { opts, report } = run.ctx;
  await run.cluster.exec('ALTER TABLE tickets SET (autovacuum_enabled = false)');
  try {
    report.log(`cluster: statistics phase, ${STATS_TICKETS} tickets on a tickets table never analysed`);
    const ids = (await createTickets([node], SPREAD, STATS_TICKETS, 'bench-stats')).map((t) => t.id);
    const reads = ids.slice(0, STATS_TICKETS / 4);
    const warm = ids.slice(reads.length, reads.length + STATS_WARMUP_READIES);
    const each = Math.floor((ids.length - reads.length - warm.length) / 2);
    const readies = [ids.slice(-2 * each, -each), ids.slice(-each)];
    let n = 0;
    const gets = (duration: number) =>
      measure({
        url: node.url,
        method: 'GET',
        headers: authHeaders(node, false),
        connections: opts.connections,
        duration,
        setupRequest: (req) => ({ ...req, path: `/v1/tickets/${reads[n++ % reads.length]}` }),
      });
    const readyAll = (pool: ReturnType<typeof idPool>, duration: number) =>
      measure({
        url: node.url,
        method: 'POST',
        headers: authHeaders(node, false),
        connections: opts.connections,
        duration,
        maxRequests: Math.max(opts.connections, pool.remaining() - opts.connections),
        setupRequest: (req) => ({ ...req, path: `/v1/tickets/${pool.next() ?? 'tk_exhausted'}/ready` }),
      });
    // The node's first requests would otherwise carry its JIT warm-up into the "before" rows.
    if (opts.warmup > 0) {
      await gets(opts.warmup);
      await readyAll(idPool(warm), opts.warmup);
    }
    for (const analysed of [false, true]) {
      if (analysed) await run.cluster.analyze();
      else {
        const [stats] = await run.cluster.exec("SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE relname = 'tickets'");
        if (stats?.['last_analyze'] != null || stats?.['last_autoanalyze'] != null)
          report.notes.push('cluster: the statistics phase found the tickets table analysed already: its "before" rows are not that');
      }
      const when = analysed ? 'after ANALYZE' : 'before ANALYZE';
      const get = await meter(run, [node]);
      const g = await gets(opts.duration);
      row(run, `GET, 1 node, ${when}`, g, await get(g));
      // Each phase readies tickets of its own (a ticket is readied once).
      const ready = await meter(run, [node]);
      const r = await readyAll(idPool(readies[analysed ? 1 : 0]!), opts.duration);
      row(run, `ready, 1 node, ${when}`, r, await ready(r), [
        r.durationS < opts.duration - 0.5 ? `ran ${r.durationS.toFixed(1)} s: its ${each} tickets ran out` : '',
      ]);
    }
    // The readied tickets' reminders would ring two minutes later, inside the measured runs
    // that follow, and count as their CPU: this phase is the cluster's first, so every pending
    // reminder is one of its own.
    await run.cluster.exec("DELETE FROM jobs WHERE kind = 'reminder' AND done_at IS NULL");
  } finally {
    await run.cluster.exec('ALTER TABLE tickets RESET (autovacuum_enabled)');
  }
}

async function pgbenchRun(ctx: StandaloneContext, pgUrl: string): Promise<Row[]> {
  const seconds = ctx.opts.duration;
  ctx.report.log(`cluster: pgbench TPC-B baseline (pgbench -i, then -c 8 -j 2 -T ${seconds}) on a throw-away database`);
  const { result, skipped } = await pgbenchTpcb(pgUrl, seconds);
  if (result === null) {
    ctx.report.notes.push(`cluster: pgbench baseline skipped: ${skipped}`);
    return [];
  }
  return [
    {
      scenario: PGBENCH_SCENARIO,
      store: 'postgres',
      rps: result.tps,
      p50: result.latencyMs,
      p99: Number.NaN,
      errors: 0,
      note: `pgbench -c ${result.clients} -j 2 -T ${result.seconds}, scale 1; p50 column: pgbench's average latency (it reports no percentiles)`,
    },
  ];
}

async function ringRun(run: Run, a: Readybell, b: Readybell): Promise<Row> {
  const { report } = run.ctx;
  report.log(`cluster: cross-node ring, ${RINGS} tickets, pages on node B (${OPEN_AT_ONCE} open at a time), ready through node A`);
  const tickets = await createTickets([a], SPREAD, RINGS, 'bench-ring');
  await run.cluster.analyze();
  const r = await crossNodeRing(a, b, tickets, OPEN_AT_ONCE);
  const sorted = [...r.latencies].sort((x, y) => x - y);
  const p50 = Number(percentile(sorted, 50).toFixed(2));
  const p99 = Number(percentile(sorted, 99).toFixed(2));
  report.notes.push(
    `cluster (${run.cluster.store.label}): cross-node ring, ready on node A → ring event on node B's page stream: p50 ${p50} ms, p99 ${p99} ms over ${sorted.length} tickets`,
  );
  const out: Row = {
    scenario: 'ring A → page on B',
    store: run.cluster.store.label,
    rps: sorted.length / Math.max(r.seconds, 0.001),
    p50,
    p99,
    errors: r.notOnPage,
    note: `one ready at a time; ${OPEN_AT_ONCE} pages open on B at a time${r.notOnPage ? `; ${r.notOnPage} readys did not answer channel_used "page"` : ''}`,
  };
  run.rows.push(out);
  return out;
}

function targets(report: Report, rows: Row[]): void {
  const mark = (met: boolean): string => (met ? '[ met ]' : '[MISSED]');
  for (const r of rows.filter((x) => x.scenario.startsWith('create, 1 node'))) {
    report.notes.push(
      `  ${mark(r.rps >= TARGET_CREATE_RPS)} ≥ ${TARGET_CREATE_RPS} creates/s on PostgreSQL, one node (${r.scenario.replace('create, 1 node, ', '')}): ${r.rps.toFixed(0)}/s`,
    );
  }
  const ring = rows.find((x) => x.scenario.startsWith('ring'));
  if (ring) report.notes.push(`  ${mark(ring.p99 < TARGET_RING_P99_MS)} cross-node ring p99 < ${TARGET_RING_P99_MS} ms: ${ring.p99} ms`);
}

export const cluster: Scenario = {
  name: 'cluster',
  kind: 'standalone',
  async run(ctx: StandaloneContext): Promise<Row[]> {
    const { opts, report } = ctx;
    const pgUrl = process.env['BENCH_DATABASE_URL'];
    const redisUrl = process.env['BENCH_REDIS_URL'];
    if (!pgUrl || !redisUrl) {
      report.notes.push('cluster: skipped — set BENCH_DATABASE_URL and BENCH_REDIS_URL to measure one and two nodes on PostgreSQL + Redis');
      return [];
    }
    const loadAtStart = os.loadavg()[0] ?? 0;
    const pgbenchRows = await pgbenchRun(ctx, pgUrl);
    report.log('cluster: starting two readybell nodes on one PostgreSQL database and one Redis');
    const c = await launchCluster({ repoRoot: opts.repoRoot, pgUrl, redisUrl, count: 2, cpuProfDir: opts.cpuProfDir });
    const run: Run = { ctx, cluster: c, rows: [...pgbenchRows], createRps: 0 };
    try {
      const [a, b] = c.nodes as [Readybell, Readybell];
      await a.start();
      for (const name of SPREAD) await call(a, 'POST', '/v1/queues', { name }, 201);
      const defaultQueue = (await call(a, 'GET', '/v1/branch', undefined, 200))['default_queue'];
      if (typeof defaultQueue !== 'string') throw new HarnessError('GET /v1/branch answered without default_queue');
      // First: every later phase analyses the database.
      await statisticsRun(run, a);
      // The ring latency first, on a cluster doing nothing else: the ready runs leave tens of
      // thousands of reminders due two minutes later, whose jobs would share the cores with it.
      await b.start();
      await ringRun(run, a, b);
      await b.stop();
      await createRun(run, [a], [defaultQueue]);
      await createRun(run, [a], SPREAD);
      await readyRun(run, [a]);
      await b.start();
      await createRun(run, [a, b], [defaultQueue]);
      await createRun(run, [a, b], SPREAD);
      await readyRun(run, [a, b]);
    } finally {
      await c.close();
    }
    report.notes.push(
      `cluster: ${os.availableParallelism()} cores shared by the load generator (autocannon, in the bench process), every readybell node, ` +
        'PostgreSQL and Redis; a second node on the same cores adds processes, not CPU, so "2 nodes" shows the cost of coordination rather than scale-out. ' +
        `1-minute load average when the cluster runs began: ${loadAtStart.toFixed(2)}${loadAtStart > 1 ? ' (other work is using these cores: req/s are low, CPU/request is the comparable figure)' : ''}.`,
    );
    report.notes.push(
      'cluster: the database is ANALYZEd after each pre-creation, as autovacuum would within a minute. The statistics phase ' +
        '(GET and ready, 1 node, before and after ANALYZE) runs first, on a tickets table with autovacuum held off: a lookup by id ' +
        "must cost the same without statistics (decision 0054; before it, PostgreSQL read the branch's whole tickets_queue_status index).",
    );
    targets(report, run.rows);
    return run.rows;
  },
};
