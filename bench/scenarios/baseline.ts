// The bare-Fastify yardstick (bench/baseline.ts), run in its own process like readybell so both
// pay the same process and loopback costs.
import { measure } from '../lib/load.ts';
import { freePort, HarnessError, startChild, stopChild, waitReady } from '../lib/proc.ts';
import { CREATE_BODY } from '../lib/api.ts';
import { startProcessCpu } from '../lib/cpu.ts';
import type { Row, Scenario, StandaloneContext } from './types.ts';

async function post(url: string, body: unknown): Promise<number> {
  const res = await fetch(`${url}/v1/tickets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

export const baseline: Scenario = {
  name: 'baseline',
  kind: 'standalone',
  async run({ opts, report }: StandaloneContext): Promise<Row[]> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = startChild('baseline server', ['bench/baseline.ts'], { PORT: String(port), HOST: '127.0.0.1' }, opts.repoRoot);
    try {
      await waitReady(child, async () => (await post(url, CREATE_BODY)) === 201);
      // A baseline that skipped validation would flatter readybell's ratio.
      const rejected = await post(url, { ...CREATE_BODY, unknown_field: 1 });
      if (rejected !== 400) throw new HarnessError(`baseline accepted an unknown field (answered ${rejected}); its validation is off`);

      const load = {
        url: `${url}/v1/tickets`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(CREATE_BODY),
        connections: opts.connections,
      };
      if (opts.warmup > 0) await measure({ ...load, duration: opts.warmup });
      report.log(`baseline: POST /v1/tickets, ${opts.connections} connections, ${opts.duration} s`);
      const cpu = startProcessCpu(child.proc.pid);
      const m = await measure({ ...load, duration: opts.duration });
      return [{ scenario: 'baseline create', store: '—', rps: m.rps, p50: m.p50, p99: m.p99, errors: m.errors, cpuUs: cpu(m.completed) }];
    } finally {
      await stopChild(child);
    }
  },
};
