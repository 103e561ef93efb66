// GET /v1/tickets/{id} on tickets that exist, walking the ids round-robin so the run reads many
// rows rather than one hot, cached one.
import { measure, describeErrors, type LoadOptions } from '../lib/load.ts';
import { authHeaders, call, precreate } from '../lib/api.ts';
import { HarnessError } from '../lib/proc.ts';
import { startProcessCpu } from '../lib/cpu.ts';
import { pidListeningOn } from '../lib/sse.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

const OWN_TICKETS = 5_000;

export const get: Scenario = {
  name: 'get',
  kind: 'readybell',
  async run({ opts, server, shared, report }: ReadybellContext): Promise<Row[]> {
    let ids = shared.ticketIds;
    if (ids === undefined || ids.length === 0) {
      report.log(`${server.store.label}: pre-creating ${OWN_TICKETS} tickets to read`);
      ids = await precreate(server, OWN_TICKETS, Math.max(100, opts.connections * 2));
      shared.ticketIds = ids;
    }
    const first = ids[0];
    if (first === undefined) throw new HarnessError('no tickets to read');
    const t = await call(server, 'GET', `/v1/tickets/${first}`, undefined, 200);
    if (t['id'] !== first) throw new HarnessError(`GET /v1/tickets/${first} answered another ticket: ${JSON.stringify(t).slice(0, 300)}`);

    const all = ids;
    let i = 0;
    const load = (duration: number): LoadOptions => ({
      url: server.url,
      method: 'GET',
      headers: authHeaders(server, false),
      connections: opts.connections,
      duration,
      setupRequest: (req) => {
        req.path = `/v1/tickets/${all[i++ % all.length]}`;
        return req;
      },
    });
    if (opts.warmup > 0) await measure(load(opts.warmup));
    report.log(`${server.store.label}: get, ${opts.connections} connections, ${opts.duration} s over ${all.length} tickets`);
    const cpu = startProcessCpu(pidListeningOn(Number(new URL(server.url).port)));
    const m = await measure(load(opts.duration));
    return [
      {
        scenario: 'get',
        store: server.store.label,
        rps: m.rps,
        p50: m.p50,
        p99: m.p99,
        errors: m.errors,
        cpuUs: cpu(m.completed),
        note: describeErrors(m),
      },
    ];
  },
};
