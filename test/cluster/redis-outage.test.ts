// A Redis outage under load on 2 nodes (issue 24 item 2, decision 0053): the nodes degrade and
// never disappear. The test runs its OWN redis-server (killed and started again on the same port;
// never the shared one) in front of 2 `readybell serve` processes on a throw-away PostgreSQL
// database, and keeps creating and reading tickets on both nodes before, during and after the
// outage. While Redis is down: no 5xx, p99 latency at most twice what it was before, /readyz 200
// saying "degraded", and every ready rings the page connected to the node that rings. Once Redis
// is back, a ready on one node rings a page held by the other again within 5 s.
//
// The issue's outage is 30 s; this one is REDIS_OUTAGE_MS (8 s by default) to keep the suite
// short: what happens in it (the breaker opens at the first failure, each node then serves on its
// own) does not change with its length. REDIS_OUTAGE=hang stops the server with SIGSTOP instead
// of killing it (connections stay open and unanswered: the command timeout finds it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, type ClusterNode } from '../helpers/cluster.ts';
import { hasRedisServer, startOwnRedis, type OwnRedis } from '../helpers/redis-server.ts';
import { openPage, type LiveClient } from '../helpers/live.ts';
import type { TestApp } from '../helpers/app.ts';

const OUTAGE_MS = Number(process.env.REDIS_OUTAGE_MS ?? 8000);
const HANG = process.env.REDIS_OUTAGE === 'hang';
const BEFORE_MS = 5000;
/** Concurrent clients of the load, each pausing this long between its requests. */
const CLIENTS = 4;
const PAUSE_MS = 20;

const skip =
  process.env.TEST_DATABASE_URL === undefined
    ? 'needs PostgreSQL (TEST_DATABASE_URL)'
    : !hasRedisServer()
      ? 'needs redis-server on PATH (its own, stopped and started by the test)'
      : false;

type Phase = 'warmup' | 'before' | 'outage' | 'after';
type Sample = { phase: Phase; ms: number; status: number; what: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const asApp = (n: ClusterNode): TestApp => n as unknown as TestApp;

function counts(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

function p99(samples: Sample[]): number {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}

/** A ready on `ringer` for a new ticket whose page is held by `holder`: what it answered and whether the page rang. */
async function ringThrough(ringer: ClusterNode, holder: ClusterNode, key: string): Promise<{ channel: string; paged: boolean }> {
  const ticket = (await ringer.request('POST', '/v1/tickets', { key, body: {} })).body;
  let page: LiveClient | null = null;
  try {
    page = await openPage(asApp(holder), ticket.url);
    const ringing = page.next('ring', undefined, 3000).then(
      () => true,
      () => false,
    );
    const ready = await ringer.request('POST', `/v1/tickets/${ticket.id}/ready`, { key });
    assert.equal(ready.status, 200, ready.text);
    // The page confirmed the ring, so it heard it; otherwise it is not waited for any longer.
    const channel = ready.body.channel_used;
    return { channel, paged: channel === 'page' ? await ringing : false };
  } finally {
    page?.close();
  }
}

test(`Redis ${HANG ? 'hung' : 'down'} for ${OUTAGE_MS / 1000} s under load on 2 nodes: no 5xx, p99 at most 2x, /readyz 200 degraded, local rings ring, cross-node rings again within 5 s`, {
  skip,
  timeout: 180_000,
}, async (t) => {
  let redis: OwnRedis | null = null;
  let cluster: Cluster | null = null;
  let running = true;
  let load: Array<Promise<void>> = [];
  try {
    redis = await startOwnRedis();
    cluster = await startCluster(2, {
      REDIS_URL: redis.url,
      RATE_LIMIT_WRITES_BURST: '100000',
      RATE_LIMIT_READS_BURST: '100000',
      SSE_HEARTBEAT_MS: '1000',
      LOG_LEVEL: 'error',
    });
    const nodes = cluster.nodes;
    const branchId = (await cluster.cli('demo')).branch.id as string;
    const key = (await cluster.cli('keys', 'create', '--branch', branchId, '--mode', 'test')).key as string;
    // The cross-node ring works before the outage: what must work again after it.
    assert.deepEqual(await ringThrough(nodes[0]!, nodes[1]!, key), { channel: 'page', paged: true });

    let phase: Phase = 'warmup';
    const samples: Sample[] = [];
    const timed = async (node: ClusterNode, method: string, path: string, what: string, body?: unknown) => {
      const at = phase;
      const started = performance.now();
      // A request that gets no answer at all counts as status 0: a failure like a 5xx.
      const res = await node.request(method, path, { key, body }).catch(() => ({ status: 0, body: undefined }) as const);
      samples.push({ phase: at, ms: performance.now() - started, status: res.status, what });
      return res;
    };
    const client = async (i: number) => {
      for (let n = 0; running; n++) {
        const node = nodes[(i + n) % nodes.length]!;
        const made = await timed(node, 'POST', '/v1/tickets', 'create', {});
        if (made.status === 201) await timed(nodes[(i + n + 1) % nodes.length]!, 'GET', `/v1/tickets/${made.body.id}`, 'get');
        await sleep(PAUSE_MS);
      }
    };
    const readyz: Array<{ phase: Phase; node: string; status: number; body: string; redis: string; sinceOutageMs: number }> = [];
    let outageAt = 0;
    const poll = async () => {
      while (running) {
        for (const node of nodes) {
          const res = await node.request('GET', '/readyz').catch(() => ({ status: 0, body: undefined }) as const);
          readyz.push({
            phase,
            node: node.name,
            status: res.status,
            body: res.body?.status,
            redis: res.body?.checks?.redis,
            sinceOutageMs: performance.now() - outageAt,
          });
        }
        await sleep(250);
      }
    };
    load = [...Array.from({ length: CLIENTS }, (_, i) => client(i)), poll()];

    await sleep(1000);
    phase = 'before';
    await sleep(BEFORE_MS);

    phase = 'outage';
    outageAt = performance.now();
    if (HANG) redis.pause();
    else await redis.kill();
    // Rings while Redis is down: each node rings the page it holds.
    const local: Array<{ channel: string; paged: boolean }> = [];
    while (performance.now() - outageAt < OUTAGE_MS - 1500) {
      for (const node of nodes) local.push(await ringThrough(node, node, key));
      await sleep(500);
    }
    await sleep(Math.max(0, OUTAGE_MS - (performance.now() - outageAt)));
    if (HANG) redis.resume();
    else await redis.start();
    phase = 'after';
    const back = performance.now();
    // The cross-node ring, tried until it rings.
    let crossNodeMs = Number.POSITIVE_INFINITY;
    const attempts: string[] = [];
    while (performance.now() - back < 15_000) {
      const tried = performance.now() - back;
      const r = await ringThrough(nodes[0]!, nodes[1]!, key);
      attempts.push(`${tried.toFixed(0)} ms: ${r.channel}${r.paged ? ' (page rang)' : ''}`);
      if (r.channel === 'page' && r.paged) {
        crossNodeMs = performance.now() - back;
        break;
      }
      await sleep(100);
    }
    await sleep(1000);
    running = false;
    await Promise.all(load);

    const of = (p: Phase) => samples.filter((s) => s.phase === p);
    const [before, during, after] = [of('before'), of('outage'), of('after')];
    const outageReadyz = readyz.filter((r) => r.phase === 'outage');
    t.diagnostic(
      `requests before/during/after: ${before.length}/${during.length}/${after.length}; ` +
        `p99 before ${p99(before).toFixed(1)} ms, during ${p99(during).toFixed(1)} ms, after ${p99(after).toFixed(1)} ms; ` +
        `max during ${Math.max(...during.map((s) => s.ms)).toFixed(1)} ms`,
    );
    t.diagnostic(
      `readyz during the outage (answer: count): ${JSON.stringify(counts(outageReadyz.map((r) => `${r.status} ${r.body} redis=${r.redis}`)))}`,
    );
    t.diagnostic(
      `local rings during the outage: ${local.length}; cross-node ring back ${crossNodeMs.toFixed(0)} ms after Redis (attempts: ${attempts.join(', ')})`,
    );

    const errors = samples.filter((s) => s.status >= 500);
    assert.deepEqual(errors, [], 'no 5xx');
    assert.ok(during.length > 20 && before.length > 20, 'the load ran through the outage');
    assert.ok(
      samples.every((s) => s.status === 201 || s.status === 200),
      `every request served: ${JSON.stringify(samples.filter((s) => s.status >= 300).slice(0, 3))}`,
    );
    assert.ok(p99(during) <= 2 * p99(before), `p99 during the outage ${p99(during).toFixed(1)} ms ≤ 2 × ${p99(before).toFixed(1)} ms`);
    assert.ok(outageReadyz.length > 4);
    assert.deepEqual(
      outageReadyz.filter((r) => r.status !== 200),
      [],
      'both nodes stay in rotation',
    );
    assert.deepEqual(
      outageReadyz.filter((r) => r.sinceOutageMs > 1000 && (r.body !== 'degraded' || r.redis === 'ok')),
      [],
      'and say they are degraded',
    );
    assert.ok(local.length >= 4, `rings made during the outage: ${local.length}`);
    assert.deepEqual(
      local.filter((r) => r.channel !== 'page' || !r.paged),
      [],
      'no ring lost: each rang the page on its own node',
    );
    assert.ok(crossNodeMs <= 5000, `the cross-node ring works again ${crossNodeMs.toFixed(0)} ms after Redis is back`);
    const settled = await Promise.all(nodes.map((n) => n.request('GET', '/readyz')));
    assert.deepEqual(
      settled.map((r) => [r.status, r.body.status]),
      [
        [200, 'ready'],
        [200, 'ready'],
      ],
      'both nodes rejoined without a restart',
    );
  } finally {
    running = false;
    await Promise.allSettled(load);
    await cluster?.close();
    await redis?.close();
  }
});
