// POST /v1/tickets under load, then the durability check: every 201 the load generator saw must
// be on disk after a SIGTERM, counted by reading the store directly rather than asking the server.
import { randomBytes } from 'node:crypto';
import { measure, describeErrors } from '../lib/load.ts';
import { authHeaders, createOne } from '../lib/api.ts';
import { startProcessCpu } from '../lib/cpu.ts';
import { pidListeningOn } from '../lib/sse.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

export const create: Scenario = {
  name: 'create',
  kind: 'readybell',
  async run({ opts, server, shared, report }: ReadybellContext): Promise<Row[]> {
    await createOne(server);
    const load = {
      url: `${server.url}/v1/tickets`,
      method: 'POST',
      headers: authHeaders(server, true),
      connections: opts.connections,
    };
    if (opts.warmup > 0) {
      await measure({ ...load, body: JSON.stringify({ queue: 'A', external_ref: 'bench-warmup' }), duration: opts.warmup });
    }

    // Only the measured run's tickets carry this ref, so warm-up and demo tickets (and warm-up
    // requests still committing after autocannon let go of them) cannot blur the count.
    const tag = `bench-${randomBytes(6).toString('hex')}`;
    report.log(`${server.store.label}: create, ${opts.connections} connections, ${opts.duration} s`);
    const cpu = startProcessCpu(pidListeningOn(Number(new URL(server.url).port)));
    const m = await measure({ ...load, body: JSON.stringify({ queue: 'A', external_ref: tag }), duration: opts.duration });
    const cpuUs = cpu(m.completed);
    shared.createRps = m.rps;
    const acknowledged = m.statusCounts['201'] ?? 0;

    report.log(`${server.store.label}: durability check (SIGTERM, count rows, restart)`);
    const { graceful } = await server.stop();
    const stored = await server.store.countTickets(tag);
    await server.start();

    // Requests autocannon abandoned when the clock ran out may still have committed: at most one
    // per connection can be stored without having been acknowledged.
    const inFlight = stored - acknowledged;
    let verdict: string;
    if (stored < acknowledged) {
      verdict = `LOST ${acknowledged - stored} acknowledged tickets`;
      report.failures.push(`${server.store.label}: ${acknowledged} creates acknowledged with 201 but only ${stored} stored after SIGTERM`);
    } else if (inFlight > opts.connections) {
      verdict = `${inFlight} more stored than acknowledged, more than the ${opts.connections} requests that can be in flight`;
      report.failures.push(`${server.store.label}: ${verdict}`);
    } else {
      verdict = inFlight === 0 ? 'ok' : `ok; ${inFlight} committed while their answers were in flight at the cut-off`;
    }
    report.notes.push(
      `durable (${server.store.label}): ${acknowledged} acknowledged, ${stored} stored — ${verdict}` +
        (graceful ? '' : ' (readybell did not exit 0 on SIGTERM: see the warning above)'),
    );

    return [{ scenario: 'create', store: server.store.label, rps: m.rps, p50: m.p50, p99: m.p99, errors: m.errors, cpuUs, note: describeErrors(m) }];
  },
};
