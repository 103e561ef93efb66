// POST /v1/tickets/{id}/ready under load. A ticket becomes ready once, so every request needs a
// ticket of its own: they are created first, then autocannon's setupRequest hands each request
// the next unused id. A 409 in this run therefore means the bench reused an id (or the server
// lost a ticket), never a legitimate answer.
import { measure, describeErrors, type LoadOptions } from '../lib/load.ts';
import { startProcessCpu } from '../lib/cpu.ts';
import { pidListeningOn } from '../lib/sse.ts';
import { authHeaders, call, idPool, precreate } from '../lib/api.ts';
import { HarnessError } from '../lib/proc.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

// The ready rate is unknown until measured; assume it may be half again the create rate (both are
// one group-committed write). A run that still runs out of tickets ends early and says so.
const HEADROOM = 1.5;
const MIN_TICKETS = 5_000;
const MAX_TICKETS = 1_000_000;
const GUESSED_CREATE_RPS = 3_000;

export const ready: Scenario = {
  name: 'ready',
  kind: 'readybell',
  async run({ opts, server, shared, report }: ReadybellContext): Promise<Row[]> {
    const seconds = opts.duration + opts.warmup;
    const wanted =
      opts.readyTickets ??
      Math.min(MAX_TICKETS, Math.max(MIN_TICKETS, Math.ceil((shared.createRps ?? GUESSED_CREATE_RPS) * seconds * HEADROOM)));
    const precreateConnections = Math.max(100, opts.connections * 2);
    report.log(`${server.store.label}: pre-creating ${wanted} tickets (${precreateConnections} connections)`);
    const started = Date.now();
    const ids = await precreate(server, wanted, precreateConnections);
    report.log(`${server.store.label}: pre-created in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    shared.ticketIds = ids;
    const pool = idPool(ids);

    // The contract the run relies on: ready answers 200 with a ticket, and only once.
    const probe = pool.next();
    if (probe === null) throw new HarnessError('no tickets to make ready');
    const first = await call(server, 'POST', `/v1/tickets/${probe}/ready`, undefined, 200);
    if (typeof first['rang'] !== 'boolean' || typeof first['ticket'] !== 'object') {
      throw new HarnessError(`ready answered 200 without rang/ticket: ${JSON.stringify(first).slice(0, 300)}`);
    }
    await call(server, 'POST', `/v1/tickets/${probe}/ready`, undefined, 409);

    let exhausted = false;
    const load = (duration: number, share: number): LoadOptions => ({
      url: server.url,
      method: 'POST',
      // No content-type: the route takes no body, and an empty JSON body would be a 400.
      headers: authHeaders(server, false),
      connections: opts.connections,
      duration,
      // Each request consumes one id and autocannon never sends more than this, so no id is
      // handed out twice; the margin covers requests re-sent after a reconnect.
      maxRequests: Math.max(1, Math.floor(pool.remaining() * share) - opts.connections),
      setupRequest: (req) => {
        const id = pool.next();
        if (id === null) exhausted = true;
        // Out of ids is a bench bug; reusing the probe ticket makes it show up as a 409.
        req.path = `/v1/tickets/${id ?? probe}/ready`;
        return req;
      },
    });

    if (opts.warmup > 0) await measure(load(opts.warmup, opts.warmup / seconds));
    if (pool.remaining() <= opts.connections * 2) throw new HarnessError('the warm-up used up the pre-created tickets');
    report.log(`${server.store.label}: ready, ${opts.connections} connections, up to ${opts.duration} s, ${pool.remaining()} tickets`);
    const cpu = startProcessCpu(pidListeningOn(Number(new URL(server.url).port)));
    const m = await measure(load(opts.duration, 1));
    const cpuUs = cpu(m.completed);
    if (exhausted) report.failures.push(`${server.store.label}: the ready run ran out of ticket ids (bench bug)`);

    const notes = [describeErrors(m)];
    if (m.durationS < opts.duration - 0.5) {
      notes.push(`ran ${m.durationS.toFixed(1)} s: tickets ran out (raise BENCH_READY_TICKETS)`);
    }
    return [
      {
        scenario: 'ready',
        store: server.store.label,
        rps: m.rps,
        p50: m.p50,
        p99: m.p99,
        errors: m.errors,
        cpuUs,
        note: notes.filter(Boolean).join('; '),
      },
    ];
  },
};
