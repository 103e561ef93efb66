// Memory per idle customer-page stream, measured inside the server's own process: readybell runs
// in this process (embedded store, temporary directory) so the heap can be collected before each
// reading; 5,000 streams are held open by a child process. Reported: retained memory (heap +
// external after a full collection) and the resident-memory growth, which also counts garbage
// not yet collected and the allocator's slack, so it reads higher.
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import v8 from 'node:v8';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { HarnessError, sleep } from '../lib/proc.ts';
import type { Row, Scenario, StandaloneContext } from './types.ts';

const STREAMS = Number(process.env['BENCH_LIVE_STREAMS'] ?? 5_000);
const QUEUES = 100;
const TARGET_BYTES = 20 * 1024;
const here = path.dirname(fileURLToPath(import.meta.url));

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function retained(): { heap: number; rss: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external, rss: m.rss };
}

export const liveMemory: Scenario = {
  name: 'live-memory',
  kind: 'standalone',
  async run({ report }: StandaloneContext): Promise<Row[]> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rb-live-mem-'));
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://127.0.0.1',
      RATE_LIMIT_WRITES_BURST: '10000000',
      RATE_LIMIT_WRITES_PER_SECOND: '10000000',
    });
    const app = await createApp(config);
    try {
      await app.server.listen({ port: 0, host: '127.0.0.1' });
      const addr = app.server.server.address();
      const url = typeof addr === 'object' && addr !== null ? `http://127.0.0.1:${addr.port}` : '';
      const now = Date.now();
      const key = await app.services.db.write(async (tx) => {
        const account = await createAccount(tx, { name: 'bench', plan: 'pro' }, now);
        const branch = await createBranch(tx, { accountId: account.id, name: 'bench' }, now);
        return (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key;
      });
      const post = async (p: string, body: unknown) => {
        const r = await fetch(url + p, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (r.status !== 201) throw new HarnessError(`POST ${p} answered ${r.status}`);
        return (await r.json()) as { url: string };
      };
      for (let q = 0; q < QUEUES; q++) await post('/v1/queues', { name: `M${q}` });
      report.log(`live-memory: creating ${STREAMS} tickets in-process`);
      const paths: string[] = [];
      for (let i = 0; i < STREAMS; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(50, STREAMS - i) }, (_, j) => post('/v1/tickets', { queue: `M${(i + j) % QUEUES}` })),
        );
        for (const t of batch) paths.push(`${url}${new URL(t.url).pathname}/events`);
      }
      await sleep(500);
      const before = retained();
      report.log(`live-memory: ${STREAMS} streams held by a child process`);
      const child = spawn(process.execPath, [path.join(here, '../lib/sse-clients.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
      child.stdin.end(paths.join('\n'));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('open') && resolve());
        child.on('exit', (code) => reject(new HarnessError(`stream client exited (${code}) before all streams were open`)));
      });
      await sleep(1000);
      if (app.live.hub.size !== STREAMS) throw new HarnessError(`the hub holds ${app.live.hub.size} streams, expected ${STREAMS}`);
      const after = retained();
      child.kill();
      const perStream = (after.heap - before.heap) / STREAMS;
      const rssPerStream = (after.rss - before.rss) / STREAMS;
      const note = `${(perStream / 1024).toFixed(1)} KB retained (heap+external after GC) and ${(rssPerStream / 1024).toFixed(1)} KB RSS growth per idle stream, ${STREAMS} streams`;
      report.notes.push(`live-memory: ${note}`);
      report.notes.push(
        `  ${perStream < TARGET_BYTES ? '[ met ]' : '[MISSED]'} < 20 KB per idle customer-page stream (retained): ${(perStream / 1024).toFixed(1)} KB`,
      );
      return [{ scenario: 'idle page streams', store: 'embedded', rps: 0, p50: 0, p99: 0, errors: 0, note }];
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
