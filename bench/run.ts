// npm run bench: readybell against a bare-Fastify baseline, on the embedded store and (with
// BENCH_DATABASE_URL) on PostgreSQL. Exits non-zero only when the harness could not measure
// honestly (a server would not start, a request failed, acknowledged writes went missing);
// a missed performance target is reported, not enforced.
//
//   BENCH_DURATION      seconds per measured run (10)
//   BENCH_CONNECTIONS   autocannon connections (50)
//   BENCH_WARMUP        seconds of unmeasured load before each run (2)
//   BENCH_DATABASE_URL  postgres://… — also run on a throw-away database on that server
//   BENCH_REDIS_URL     redis://… — with BENCH_DATABASE_URL: the cluster scenario (one and two nodes),
//                       with a pgbench TPC-B baseline (pgbench -i, then -c 8 -j 2 -T BENCH_DURATION on a
//                       throw-away database; skipped with a note when pgbench is not installed)
//   BENCH_CPU_PROF=1    profile readybell (--cpu-prof); the profiles' directory is printed
//   BENCH_READY_TICKETS tickets to pre-create for the ready run (default: sized from create)
//   BENCH_SCENARIOS     comma list to run a subset, e.g. "baseline,ready"
//   BENCH_TENANT_BRANCHES branches the tenants scenario spreads its creates and readies over (10000)
//   BENCH_HISTORY_TICKETS tickets in the history scenario's large store (1000000)
//   BENCH_INSIGHTS_TICKETS tickets in the insights scenario's large store (1000000)
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { scenarios } from './scenarios/index.ts';
import type { BenchOptions, Report, Scenario, Shared } from './scenarios/types.ts';
import { launchReadybell, type Readybell } from './lib/readybell.ts';
import { embeddedTarget, postgresTarget, type StoreTarget } from './lib/stores.ts';
import { HarnessError, killLiveChildren } from './lib/proc.ts';
import { checkTargets, formatTable, formatTargets } from './lib/table.ts';
import { readyTargets } from './lib/ready-targets.ts';
import { tenantTargets } from './scenarios/tenants.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function envNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) {
    console.error(`${name} must be a number ≥ ${min} (got "${raw}")`);
    process.exit(2);
  }
  return n;
}

const opts: BenchOptions = {
  repoRoot,
  duration: envNumber('BENCH_DURATION', 10, 1),
  connections: Math.round(envNumber('BENCH_CONNECTIONS', 50, 1)),
  warmup: envNumber('BENCH_WARMUP', 2, 0),
  cpuProfDir: null,
  readyTickets: process.env['BENCH_READY_TICKETS'] ? Math.round(envNumber('BENCH_READY_TICKETS', 0, 100)) : null,
};
if (process.env['BENCH_CPU_PROF'] === '1') {
  // test-artifacts/ is git-ignored and survives the run, unlike the temp data directories.
  opts.cpuProfDir = path.join(repoRoot, 'test-artifacts', `cpu-prof-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(opts.cpuProfDir, { recursive: true });
}
const only = (process.env['BENCH_SCENARIOS'] ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const selected = scenarios.filter((s) => only.length === 0 || only.includes(s.name));
if (selected.length === 0) {
  console.error(`BENCH_SCENARIOS matched nothing; known: ${scenarios.map((s) => s.name).join(', ')}`);
  process.exit(2);
}

const report: Report = {
  rows: [],
  notes: [],
  failures: [],
  log: (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
};

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killLiveChildren();
    process.exit(130);
  });
}

const cores = os.availableParallelism();
console.log(`readybell bench — Node ${process.version}, ${cores} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`);
console.log(
  `${opts.connections} connections, ${opts.duration} s per run after ${opts.warmup} s warm-up. The load generator (autocannon, ` +
    `in this process) and the server share these ${cores} cores, so every number is a lower bound for the server alone.`,
);
if (opts.connections !== 50) console.log('Note: the issue states its targets at 50 connections.');
const load1 = os.loadavg()[0] ?? 0;
if (load1 > 0.5) {
  console.log(`Note: the 1-minute load average is already ${load1.toFixed(2)}: something else is using the CPU, expect low numbers.`);
}
console.log('');

function recordFailure(where: string, err: unknown): void {
  const msg = err instanceof HarnessError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  report.failures.push(`${where}: ${msg}`);
  console.error(`FAILED ${where}: ${msg}`);
}

async function runStandalone(s: Extract<Scenario, { kind: 'standalone' }>): Promise<void> {
  try {
    report.rows.push(...(await s.run({ opts, report })));
  } catch (err) {
    recordFailure(s.name, err);
  }
}

async function runOnStore(
  makeTarget: (dataDir: string) => Promise<StoreTarget>,
  label: string,
  list: Array<Extract<Scenario, { kind: 'readybell' }>>,
): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rb-bench-'));
  let target: StoreTarget | null = null;
  let server: Readybell | null = null;
  try {
    target = await makeTarget(dataDir);
    report.log(`${label}: starting readybell (demo, then serve) on ${dataDir}`);
    server = await launchReadybell({ repoRoot, dataDir, store: target, cpuProfDir: opts.cpuProfDir });
    await server.start();
    const shared: Shared = {};
    for (const s of list) {
      try {
        report.rows.push(...(await s.run({ opts, report, server, shared })));
      } catch (err) {
        recordFailure(`${s.name} (${label})`, err);
        // A failed scenario may leave the server down or its data inconsistent: stop this store.
        break;
      }
    }
  } catch (err) {
    recordFailure(`readybell on ${label}`, err);
  } finally {
    if (server !== null) await server.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    if (target !== null) await target.cleanup();
  }
}

// Standalone scenarios listed after the per-store ones (the cluster) also run after them.
const firstOnStore = selected.findIndex((s) => s.kind === 'readybell');
const standaloneLast = selected.filter(
  (s, i): s is Extract<Scenario, { kind: 'standalone' }> => s.kind === 'standalone' && firstOnStore !== -1 && i > firstOnStore,
);
for (const s of selected) if (s.kind === 'standalone' && !standaloneLast.includes(s)) await runStandalone(s);

const onReadybell = selected.filter((s): s is Extract<Scenario, { kind: 'readybell' }> => s.kind === 'readybell');
if (onReadybell.length > 0) {
  await runOnStore(async (dataDir) => embeddedTarget(dataDir), 'embedded', onReadybell);
  const pgUrl = process.env['BENCH_DATABASE_URL'];
  if (pgUrl) await runOnStore(() => postgresTarget(pgUrl), 'postgres', onReadybell);
  else console.log('(BENCH_DATABASE_URL not set: PostgreSQL runs skipped)');
}
for (const s of standaloneLast) await runStandalone(s);

const baselineRow = report.rows.find((r) => r.scenario === 'baseline create');
const baselineRps = baselineRow?.rps ?? null;
for (const r of report.rows) {
  if (r.errors > 0) report.failures.push(`${r.scenario} (${r.store}): ${r.errors} errors${r.note ? ` — ${r.note}` : ''}`);
}

console.log('');
console.log(formatTable(report.rows, baselineRps));
console.log('');
for (const n of report.notes) console.log(n);
console.log('targets (from the issue; reported, not enforced):');
console.log(formatTargets(checkTargets(report.rows, baselineRps, opts.connections)));
console.log('');
console.log('issue 24: a ready on PostgreSQL (cluster scenario and create on PostgreSQL, same run; decision 0054):');
for (const line of readyTargets(report.rows, opts.connections)) console.log(line);
console.log('issue 34: cost does not grow with tenants (tenants scenario, BENCH_TENANT_BRANCHES):');
for (const line of tenantTargets(report.rows)) console.log(line);
if (opts.cpuProfDir !== null) {
  const files = readdirSync(opts.cpuProfDir).filter((f) => f.endsWith('.cpuprofile'));
  console.log(`CPU profiles (${files.length}, one per readybell process) in ${opts.cpuProfDir}`);
  console.log('  open in Chrome DevTools (Performance → Load profile) or https://www.speedscope.app');
}
if (report.failures.length > 0) {
  console.error(`\nharness failures (${report.failures.length}):`);
  for (const f of report.failures) console.error(`  - ${f}`);
  process.exitCode = 1;
}
