// `readybell backup` on a store of many tickets, taken while the server keeps creating them:
// how long the copy takes, how large it is, what the creates running beside it saw, and how long
// `readybell restore` takes to put it back. Not part of `npm run bench` (filling the store alone
// takes a minute or more).
//
//   npx node bench/backup.ts            100,000 tickets
//   BENCH_BACKUP_TICKETS=20000 npx node bench/backup.ts
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { launchReadybell } from './lib/readybell.ts';
import { embeddedTarget } from './lib/stores.ts';
import { authHeaders, precreate } from './lib/api.ts';
import { HarnessError, runToEnd } from './lib/proc.ts';
import { percentile } from './lib/cross-node-ring.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tickets = Number(process.env['BENCH_BACKUP_TICKETS'] ?? 100_000);
const work = mkdtempSync(path.join(os.tmpdir(), 'readybell-bench-backup-'));
const dataDir = path.join(work, 'data');
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const size = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** Creates tickets on a few connections until stopped; each create's latency, by when it started. */
function createLoad(server: Awaited<ReturnType<typeof launchReadybell>>, connections: number) {
  const samples: Array<{ start: number; ms: number }> = [];
  let running = true;
  let failed: string | null = null;
  const loops = Array.from({ length: connections }, async () => {
    while (running) {
      const start = performance.now();
      const res = await fetch(`${server.url}/v1/tickets`, {
        method: 'POST',
        headers: authHeaders(server, true),
        body: JSON.stringify({ queue: 'A' }),
      });
      await res.arrayBuffer();
      if (res.status !== 201) failed ??= `POST /v1/tickets answered ${res.status}`;
      samples.push({ start, ms: performance.now() - start });
    }
  });
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
      if (failed !== null) throw new HarnessError(failed);
    },
  };
}

function describe(samples: Array<{ ms: number }>): string {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  return `${ms.length} creates, p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${(ms.at(-1) ?? NaN).toFixed(1)} ms`;
}

const server = await launchReadybell({ repoRoot, dataDir, store: embeddedTarget(dataDir), cpuProfDir: null });
try {
  await server.start();
  const fillStart = performance.now();
  await precreate(server, tickets, 50);
  console.log(`filled the store with ${tickets} tickets in ${((performance.now() - fillStart) / 1000).toFixed(1)} s`);
  const store = path.join(dataDir, 'readybell.db');
  console.log(`store: ${mb(size(store))} (+ ${mb(size(`${store}-wal`))} of WAL)`);

  const load = createLoad(server, 4);
  await new Promise((r) => setTimeout(r, 3000));
  const backupStart = performance.now();
  const file = path.join(work, 'backup.db');
  const out = JSON.parse(
    await runToEnd(
      'readybell backup',
      ['src/cli/main.ts', 'backup', file, '--json'],
      { DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      repoRoot,
      600_000,
    ),
  ) as { ms: number; bytes: number; tickets: number };
  const backupEnd = performance.now();
  await new Promise((r) => setTimeout(r, 1000));
  await load.stop();

  const before = load.samples.filter((s) => s.start < backupStart);
  const during = load.samples.filter((s) => s.start >= backupStart && s.start < backupEnd);
  console.log(
    `backup: ${out.ms} ms copying and checking, ${Math.round(backupEnd - backupStart)} ms for the whole command; ${mb(out.bytes)}, ${out.tickets} tickets`,
  );
  console.log(`creates before the backup: ${describe(before)}`);
  console.log(`creates during the backup: ${describe(during)}`);

  const restoreStart = performance.now();
  await runToEnd(
    'readybell restore',
    ['src/cli/main.ts', 'restore', file],
    { DATA_DIR: path.join(work, 'restored'), LOG_LEVEL: 'warn' },
    repoRoot,
    600_000,
  );
  console.log(`restore: ${Math.round(performance.now() - restoreStart)} ms for the whole command`);
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
