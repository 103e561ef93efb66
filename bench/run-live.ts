// Runs only the live scenario (ring latency and memory per stream) on the embedded store, and on
// PostgreSQL with BENCH_DATABASE_URL. `npm run bench` runs it too, with everything else.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { launchReadybell } from './lib/readybell.ts';
import { embeddedTarget, postgresTarget, type StoreTarget } from './lib/stores.ts';
import { live } from './scenarios/live.ts';
import { liveMemory } from './scenarios/live-memory.ts';
import type { Report } from './scenarios/types.ts';
import { formatTable } from './lib/table.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const report: Report = { rows: [], notes: [], failures: [], log: (l) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${l}`) };
const opts = { repoRoot, duration: 10, connections: 50, warmup: 2, cpuProfDir: null, readyTickets: null };

async function on(make: (dir: string) => Promise<StoreTarget>): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rb-live-'));
  const target = await make(dataDir);
  const server = await launchReadybell({ repoRoot, dataDir, store: target, cpuProfDir: process.env['LIVE_PROF'] ?? null });
  try {
    await server.start();
    report.rows.push(...(await live.run({ opts, report, server, shared: {} })));
  } catch (err) {
    report.failures.push(String((err as Error).stack ?? err));
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await target.cleanup();
  }
}

if (liveMemory.kind === 'standalone') report.rows.push(...(await liveMemory.run({ opts, report })));
await on(async (dir) => embeddedTarget(dir));
if (process.env['BENCH_DATABASE_URL']) await on(() => postgresTarget(process.env['BENCH_DATABASE_URL']!));
console.log(`\n${formatTable(report.rows, null)}\n`);
for (const n of report.notes) console.log(n);
for (const f of report.failures) console.error(`FAILED: ${f}`);
process.exitCode = report.failures.length > 0 ? 1 : 0;
