// Ring latency: the time from sending POST /ready to the `ring` event arriving on the ticket's
// open customer-page stream, p50/p99 over 1,000 tickets, one ready at a time, with 5,000 pages
// open. The bench plays the page: it confirms each ring as the page script does, so every ready
// answers channel_used "page" (checked) and none waits out the ring deadline. The server's RSS
// growth with the streams open is noted; live-memory.ts measures retained memory per stream.
import { authHeaders, call } from '../lib/api.ts';
import { measure } from '../lib/load.ts';
import { HarnessError, sleep } from '../lib/proc.ts';
import { openStream, pidListeningOn, rssOf, type BenchStream } from '../lib/sse.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

const STREAMS = Number(process.env['BENCH_LIVE_STREAMS'] ?? 5_000);
const RINGS = Math.min(STREAMS, Number(process.env['BENCH_LIVE_RINGS'] ?? 1_000));
const OPEN_CONCURRENCY = 200;
/** Waiting customers spread over queues as in a busy branch, not 5,000 in one line. */
const QUEUES = 100;
const TARGET_P99_MS = 10;

async function createTickets(ctx: ReadybellContext, count: number): Promise<Array<{ id: string; path: string }>> {
  const { server } = ctx;
  for (let q = 0; q < QUEUES; q++) {
    const r = await fetch(`${server.url}/v1/queues`, {
      method: 'POST',
      headers: authHeaders(server, true),
      body: JSON.stringify({ name: `L${q}` }),
    });
    if (r.status !== 201 && r.status !== 409)
      throw new HarnessError(`creating queue L${q} answered ${r.status}: ${(await r.text()).slice(0, 200)}`);
    await r.arrayBuffer().catch(() => null);
  }
  const out: Array<{ id: string; path: string }> = [];
  let n = 0;
  await measure({
    url: `${server.url}/v1/tickets`,
    method: 'POST',
    headers: authHeaders(server, true),
    body: JSON.stringify({ queue: 'L0' }),
    setupRequest: (req) => ({ ...req, body: JSON.stringify({ queue: `L${n++ % QUEUES}` }) }),
    connections: 50,
    duration: 0,
    amount: count,
    onResponse: (status, body) => {
      if (status !== 201) return;
      const t = JSON.parse(body) as { id: string; url: string };
      out.push({ id: t.id, path: new URL(t.url).pathname });
    },
  });
  if (out.length !== count) throw new HarnessError(`created ${out.length} of ${count} tickets for the live bench`);
  return out;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function settledRss(pid: number): Promise<number> {
  // RSS includes garbage not yet collected; V8 shrinks the heap some seconds after allocation
  // stops, so sample for a while and keep the lowest.
  let low = Infinity;
  for (let i = 0; i < 20; i++) {
    await sleep(500);
    low = Math.min(low, rssOf(pid));
  }
  return low;
}

export const live: Scenario = {
  name: 'live',
  kind: 'readybell',
  async run(ctx: ReadybellContext): Promise<Row[]> {
    const { server, report } = ctx;
    const label = server.store.label;
    const pid = pidListeningOn(Number(new URL(server.url).port));
    report.log(`${label}: live — creating ${STREAMS} tickets`);
    const tickets = await createTickets(ctx, STREAMS);
    const before = pid === null ? null : await settledRss(pid);

    report.log(`${label}: live — opening ${STREAMS} customer-page streams`);
    const streams: BenchStream[] = new Array(tickets.length);
    for (let i = 0; i < tickets.length; i += OPEN_CONCURRENCY) {
      const batch = tickets.slice(i, i + OPEN_CONCURRENCY).map((t, j) => {
        const s = openStream(`${server.url}${t.path}/events`);
        streams[i + j] = s;
        return s.opened;
      });
      await Promise.all(batch);
    }
    const after = pid === null ? null : await settledRss(pid);

    report.log(`${label}: live — ${RINGS} readys, one at a time, each page confirming its ring`);
    const latencies: number[] = [];
    let wrong = 0;
    const started = performance.now();
    for (let i = 0; i < RINGS; i++) {
      const t = tickets[i]!;
      const s = streams[i]!;
      let arrived = 0;
      const sent = performance.now();
      s.onRing = (ringId, at) => {
        arrived = at;
        // What the page script does: confirm, so the ready answers "page" without waiting.
        void fetch(`${server.url}${t.path}/ring-ack`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ring_id: ringId }),
        }).then((r) => r.arrayBuffer());
      };
      const answer = await call(server, 'POST', `/v1/tickets/${t.id}/ready`, undefined, 200);
      if (answer['channel_used'] !== 'page' || arrived === 0) wrong += 1;
      else latencies.push(arrived - sent);
    }
    const seconds = (performance.now() - started) / 1000;
    for (const s of streams) s.close();

    latencies.sort((a, b) => a - b);
    const p50 = latencies.length ? Number(percentile(latencies, 50).toFixed(2)) : 0;
    const p99 = latencies.length ? Number(percentile(latencies, 99).toFixed(2)) : 0;
    const perStream = before !== null && after !== null ? (after - before) / STREAMS : null;
    const memory =
      perStream === null
        ? 'RSS not readable here (no /proc)'
        : `RSS ${(before! / 2 ** 20).toFixed(0)} → ${(after! / 2 ** 20).toFixed(0)} MB with ${STREAMS} streams (${(perStream / 1024).toFixed(1)} KB each, garbage included)`;
    report.notes.push(
      `live (${label}): ring latency ready → page event p50 ${p50} ms, p99 ${p99} ms over ${latencies.length} tickets; ${memory}`,
    );
    report.notes.push(`  ${p99 < TARGET_P99_MS ? '[ met ]' : '[MISSED]'} ready-to-page p99 < ${TARGET_P99_MS} ms (${label}): ${p99} ms`);
    return [
      {
        scenario: 'ring → page',
        store: label,
        rps: latencies.length / seconds,
        p50,
        p99,
        errors: wrong,
        note: `${STREAMS} streams open; ${memory}${wrong ? `; ${wrong} readys did not reach the page` : ''}`,
      },
    ];
  },
};
