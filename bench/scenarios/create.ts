// POST /v1/tickets under load, then the durability check: every 201 the load generator saw must
// be on disk after a SIGTERM, counted by reading the store directly rather than asking the server.
//
// The headline row sends a fresh Idempotency-Key with every create, as docs/integrator-guide.md
// tells a POS to; the second row sends none. A figure measured only without a key would describe
// a path no well-behaved integrator takes.
import { randomBytes, randomUUID } from 'node:crypto';
import { measure, describeErrors } from '../lib/load.ts';
import { authHeaders, createOne } from '../lib/api.ts';
import { startCpuMeter, startProcessCpu } from '../lib/cpu.ts';
import { pidListeningOn } from '../lib/sse.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

type Variant = { scenario: string; keyed: boolean };

const VARIANTS: Variant[] = [
  { scenario: 'create', keyed: true },
  { scenario: 'create (no key)', keyed: false },
];

export const create: Scenario = {
  name: 'create',
  kind: 'readybell',
  async run(context: ReadybellContext): Promise<Row[]> {
    const { opts, server, shared, report } = context;
    await createOne(server);
    const rows: Row[] = [];
    const tags: { variant: Variant; tag: string; acknowledged: number }[] = [];
    const pgByVariant = new Map<string, number | null>();
    for (const variant of VARIANTS) {
      // Only the measured run's tickets carry this ref, so warm-up and demo tickets (and warm-up
      // requests still committing after autocannon let go of them) cannot blur the count.
      const tag = `bench-${randomBytes(6).toString('hex')}`;
      const load = loadFor(context, variant);
      if (opts.warmup > 0) await measure({ ...load(`${tag}-warmup`), duration: opts.warmup });
      report.log(`${server.store.label}: ${variant.scenario}, ${opts.connections} connections, ${opts.duration} s`);
      const pid = pidListeningOn(Number(new URL(server.url).port));
      const cpu = startProcessCpu(pid);
      // On PostgreSQL the database's share of a create is half of it or more: measured beside the server's.
      const databaseUrl = server.store.env['DATABASE_URL'];
      const pgCpu = databaseUrl === undefined || pid === null ? null : await startCpuMeter([pid], databaseUrl);
      const m = await measure({ ...load(tag), duration: opts.duration });
      const cpuUs = cpu(m.completed);
      const pgUs = pgCpu === null ? null : ((await pgCpu(m.completed))?.postgres ?? 0) * 1000;
      // The ready run sizes its tickets by the rate integrators get: the keyed one.
      if (variant.keyed) shared.createRps = m.rps;
      tags.push({ variant, tag, acknowledged: m.statusCounts['201'] ?? 0 });
      const note = [describeErrors(m), pgUs === null ? '' : `PostgreSQL ${pgUs.toFixed(0)} µs/req`].filter(Boolean).join('; ');
      pgByVariant.set(variant.scenario, pgUs);
      rows.push({
        scenario: variant.scenario,
        store: server.store.label,
        rps: m.rps,
        p50: m.p50,
        p99: m.p99,
        errors: m.errors,
        cpuUs,
        dbCpuUs: pgUs,
        note,
      });
    }
    const keyed = rows[0];
    const unkeyed = rows[1];
    if (keyed && unkeyed && unkeyed.rps > 0) {
      const cpuRatio = keyed.cpuUs && unkeyed.cpuUs ? `, ${(keyed.cpuUs / unkeyed.cpuUs).toFixed(2)}× the server CPU per create` : '';
      const pgKeyed = pgByVariant.get(keyed.scenario);
      const pgUnkeyed = pgByVariant.get(unkeyed.scenario);
      const pgRatio = pgKeyed && pgUnkeyed ? `, ${(pgKeyed / pgUnkeyed).toFixed(2)}× PostgreSQL's` : '';
      report.notes.push(
        `keyed vs unkeyed creates (${server.store.label}): ${((keyed.rps / unkeyed.rps) * 100).toFixed(0)}% of the req/s${cpuRatio}${pgRatio}`,
      );
    }

    report.log(`${server.store.label}: durability check (SIGTERM, count rows, restart)`);
    const { graceful } = await server.stop();
    for (const { variant, tag, acknowledged } of tags) {
      const stored = await server.store.countTickets(tag);
      report.notes.push(
        `durable (${server.store.label}, ${variant.scenario}): ${acknowledged} acknowledged, ${stored} stored — ${verdict(context, acknowledged, stored)}` +
          (graceful ? '' : ' (readybell did not exit 0 on SIGTERM: see the warning above)'),
      );
    }
    await server.start();
    return rows;
  },
};

/** The load for one variant: the same body, with or without a fresh key per request. */
function loadFor({ opts, server }: ReadybellContext, variant: Variant) {
  return (tag: string) => {
    const body = JSON.stringify({ queue: 'A', external_ref: tag });
    return {
      url: `${server.url}/v1/tickets`,
      method: 'POST',
      headers: authHeaders(server, true),
      connections: opts.connections,
      body,
      // A UUID per request costs the load generator a little CPU, which only lowers the keyed row.
      ...(variant.keyed
        ? { setupRequest: (req: object) => ({ ...req, headers: { ...authHeaders(server, true), 'idempotency-key': randomUUID() } }) }
        : {}),
    };
  };
}

function verdict({ opts, server, report }: ReadybellContext, acknowledged: number, stored: number): string {
  // Requests autocannon abandoned when the clock ran out may still have committed: at most one
  // per connection can be stored without having been acknowledged.
  const inFlight = stored - acknowledged;
  if (stored < acknowledged) {
    report.failures.push(`${server.store.label}: ${acknowledged} creates acknowledged with 201 but only ${stored} stored after SIGTERM`);
    return `LOST ${acknowledged - stored} acknowledged tickets`;
  }
  if (inFlight > opts.connections) {
    const v = `${inFlight} more stored than acknowledged, more than the ${opts.connections} requests that can be in flight`;
    report.failures.push(`${server.store.label}: ${v}`);
    return v;
  }
  return inFlight === 0 ? 'ok' : `ok; ${inFlight} committed while their answers were in flight at the cut-off`;
}
