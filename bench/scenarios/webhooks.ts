// Webhook delivery, measured at a real receiver in this process (every body's signature checked):
//   latency    — event committed → receiver got it, one ticket at a time (an idle worker), over
//                BENCH_WEBHOOK_EVENTS events (1,000) after a short warm-up. "Committed" is the
//                event's created_at, stamped inside the transaction just before its commit, so the
//                figure includes the commit itself and is, if anything, pessimistic (ms resolution).
//   throughput — a backlog drained at full speed: the receiver holds every request until the
//                backlog exists, which fills every worker slot (however many), while
//                BENCH_WEBHOOK_BACKLOG tickets (10,000) are created; then it lets go and answers
//                at once. Deliveries per second = deliveries after the release / drain time.
// The endpoint is deleted at the end, so scenarios after this one make no deliveries.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../src/webhooks/verify.ts';
import { call, precreate } from '../lib/api.ts';
import { HarnessError } from '../lib/proc.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

const LATENCY_TARGET_MS = 50;
const THROUGHPUT_TARGET = 2000;
const WARMUP_EVENTS = 50;
// Below the 10 s delivery timeout: held requests must be answered before they time out.
const MAX_HOLD_MS = 8000;

function envInt(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

type Arrival = { ticketId: string; createdAt: number; receivedAt: number };

class Receiver {
  secret = '';
  bad = 0;
  holding = false;
  readonly arrivals = new Map<string, Arrival>();
  readonly byTicket = new Map<string, Arrival>();
  duplicates = 0;
  private held: http.ServerResponse[] = [];
  private waiters = new Map<string, () => void>();
  private countWaiter: { n: number; resolve: () => void } | null = null;
  private readonly server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => this.handle(Buffer.concat(chunks), req.headers['service-signature'], res));
  });

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  private handle(body: Buffer, signature: string | string[] | undefined, res: http.ServerResponse): void {
    const receivedAt = performance.timeOrigin + performance.now();
    let event: { id: string; created_at: string; data: Record<string, unknown> } | null = null;
    try {
      event = verifyWebhook(body, signature, this.secret) as unknown as typeof event;
    } catch {
      this.bad++;
      res.writeHead(400).end();
      return;
    }
    const ticketId = (event!.data['object'] as { id?: string } | undefined)?.id ?? '';
    if (this.arrivals.has(event!.id)) this.duplicates++;
    else {
      const arrival = { ticketId, createdAt: Date.parse(event!.created_at), receivedAt };
      this.arrivals.set(event!.id, arrival);
      this.byTicket.set(ticketId, arrival);
    }
    this.waiters.get(ticketId)?.();
    if (this.countWaiter && this.arrivals.size >= this.countWaiter.n) this.countWaiter.resolve();
    if (this.holding) {
      this.held.push(res);
      return;
    }
    res.writeHead(204).end();
  }

  forTicket(ticketId: string, ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new HarnessError(`no delivery for ${ticketId} within ${ms} ms`)), ms);
      this.waiters.set(ticketId, () => {
        clearTimeout(timer);
        this.waiters.delete(ticketId);
        resolve();
      });
    });
  }

  untilCount(n: number, ms: number): Promise<void> {
    if (this.arrivals.size >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new HarnessError(`${this.arrivals.size} of ${n} deliveries after ${ms} ms`)), ms);
      this.countWaiter = {
        n,
        resolve: () => {
          clearTimeout(timer);
          this.countWaiter = null;
          resolve();
        },
      };
    });
  }

  release(): void {
    this.holding = false;
    for (const res of this.held.splice(0)) res.writeHead(204).end();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const round = (n: number): number => Math.round(n * 10) / 10;

export const webhooks: Scenario = {
  name: 'webhooks',
  kind: 'readybell',
  async run({ server, report }: ReadybellContext): Promise<Row[]> {
    const events = envInt('BENCH_WEBHOOK_EVENTS', 1000);
    const backlog = envInt('BENCH_WEBHOOK_BACKLOG', 10_000);
    const receiver = new Receiver();
    const url = await receiver.start();
    let endpointId: string | null = null;
    try {
      const res = await fetch(`${server.url}/v1/webhook_endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, enabled_events: ['ticket.created'] }),
      });
      if (res.status === 422) {
        report.notes.push(
          `webhooks (${server.store.label}): skipped — this server refuses 127.0.0.1 receivers; set WEBHOOK_ALLOW_PRIVATE=true to measure`,
        );
        return [];
      }
      const endpoint = (await res.json()) as { id?: string; secret?: string };
      if (res.status !== 201 || typeof endpoint.secret !== 'string')
        throw new HarnessError(`creating the endpoint answered ${res.status}: ${JSON.stringify(endpoint).slice(0, 300)}`);
      receiver.secret = endpoint.secret;
      endpointId = endpoint.id ?? null;

      // Latency: one event at a time, so the worker is idle when each one commits.
      report.log(`${server.store.label}: webhook latency, ${events} events one at a time`);
      const latencies: number[] = [];
      const fromRequest: number[] = [];
      for (let i = 0; i < WARMUP_EVENTS + events; i++) {
        const sent = performance.timeOrigin + performance.now();
        const ticket = await call(server, 'POST', '/v1/tickets', { queue: 'A', external_ref: 'bench-webhook' }, 201);
        const id = String(ticket['id']);
        // The delivery may arrive before the API's answer does.
        if (!receiver.byTicket.has(id)) await receiver.forTicket(id, 10_000);
        const a = receiver.byTicket.get(id)!;
        if (i >= WARMUP_EVENTS) {
          latencies.push(a.receivedAt - a.createdAt);
          fromRequest.push(a.receivedAt - sent);
        }
      }
      latencies.sort((x, y) => x - y);
      fromRequest.sort((x, y) => x - y);
      const p50 = round(percentile(latencies, 50));
      const p99 = round(percentile(latencies, 99));

      // Throughput: hold the first requests so the worker's slots fill, build the backlog, release.
      receiver.arrivals.clear();
      receiver.holding = true;
      report.log(`${server.store.label}: webhook throughput, backlog of ${backlog} deliveries`);
      const started = Date.now();
      const holdGuard = setTimeout(() => receiver.release(), MAX_HOLD_MS);
      await precreate(server, backlog, 100);
      const created = Date.now() - started;
      clearTimeout(holdGuard);
      const already = receiver.arrivals.size;
      const t0 = performance.now();
      receiver.release();
      await receiver.untilCount(backlog, 120_000);
      const drainS = (performance.now() - t0) / 1000;
      const rate = (backlog - already) / drainS;

      const errors = receiver.bad;
      report.notes.push(
        `webhooks (${server.store.label}): latency committed → received over ${latencies.length} events: p50 ${p50} ms, p99 ${p99} ms, max ${round(latencies.at(-1)!)} ms ` +
          `(request sent → received: p50 ${round(percentile(fromRequest, 50))} ms, p99 ${round(percentile(fromRequest, 99))} ms); ` +
          `throughput ${rate.toFixed(0)} deliveries/s draining ${backlog - already} (${already} arrived while the ${backlog} tickets were created in ${(created / 1000).toFixed(1)} s)` +
          (receiver.duplicates > 0 ? `; ${receiver.duplicates} duplicate deliveries (at least once)` : ''),
      );
      report.notes.push(
        `  [${p99 < LATENCY_TARGET_MS ? ' met ' : 'MISSED'}] webhook latency p99 < ${LATENCY_TARGET_MS} ms (${server.store.label}): ${p99} ms`,
      );
      report.notes.push(
        `  [${rate >= THROUGHPUT_TARGET ? ' met ' : 'MISSED'}] webhook deliveries ≥ ${THROUGHPUT_TARGET}/s (${server.store.label}): ${rate.toFixed(0)}/s`,
      );
      return [
        {
          scenario: 'webhook latency',
          store: server.store.label,
          rps: 0,
          p50,
          p99,
          errors,
          note: 'committed → received, one event at a time; req/s not applicable',
        },
        {
          scenario: 'webhook throughput',
          store: server.store.label,
          rps: rate,
          p50: 0,
          p99: 0,
          errors,
          note: `deliveries/s draining a backlog of ${backlog - already}; latency columns not applicable`,
        },
      ];
    } finally {
      if (endpointId !== null) await call(server, 'DELETE', `/v1/webhook_endpoints/${endpointId}`, undefined, 200).catch(() => {});
      await receiver.close();
    }
  },
};
