// Cross-node ring latency: customer pages hold their streams on node B, the POS makes the ticket
// ready through node A, and the clock runs from sending the ready to the `ring` event's bytes
// arriving on B's stream (PostgreSQL commit, Redis presence lookup, Redis publish, B's write).
// The bench plays the page script: it confirms each ring through B, as the page would through
// the node it is connected to, so the ready answers channel_used "page" (checked) instead of
// waiting out the ring deadline.
import { call } from './api.ts';
import { HarnessError } from './proc.ts';
import { openStream, type BenchStream } from './sse.ts';
import type { Readybell } from './readybell.ts';
import type { BenchTicket } from './cluster-nodes.ts';

export type RingResult = { latencies: number[]; notOnPage: number; seconds: number };

export async function crossNodeRing(a: Readybell, b: Readybell, tickets: readonly BenchTicket[], openAtOnce: number): Promise<RingResult> {
  const latencies: number[] = [];
  let notOnPage = 0;
  let rangSeconds = 0;
  for (let i = 0; i < tickets.length; i += openAtOnce) {
    const batch = tickets.slice(i, i + openAtOnce);
    const streams: BenchStream[] = batch.map((t) => openStream(`${b.url}${t.path}/events`));
    try {
      await Promise.all(streams.map((s) => s.opened));
      const started = performance.now();
      for (let j = 0; j < batch.length; j++) {
        const t = batch[j]!;
        const s = streams[j]!;
        let arrived = 0;
        s.onRing = (ringId, at) => {
          if (arrived === 0) arrived = at;
          void fetch(`${b.url}${t.path}/ring-ack`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ring_id: ringId }),
          })
            .then((r) => r.arrayBuffer())
            .catch(() => {});
        };
        const sent = performance.now();
        const answer = await call(a, 'POST', `/v1/tickets/${t.id}/ready`, undefined, 200);
        if (answer['channel_used'] !== 'page' || arrived === 0) notOnPage += 1;
        else latencies.push(arrived - sent);
      }
      rangSeconds += (performance.now() - started) / 1000;
    } catch (err) {
      throw err instanceof HarnessError ? err : new HarnessError(`cross-node ring: ${(err as Error).message}`);
    } finally {
      for (const s of streams) s.close();
    }
  }
  return { latencies, notOnPage, seconds: rangSeconds };
}

export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
