// A Redis outage under load on 2 nodes (issue 24 item 2, decision 0053): the nodes degrade and
// never disappear. The test runs its OWN redis-server (killed and started again on the same port;
// never the shared one) in front of 2 `readybell serve` processes on a throw-away PostgreSQL
// database, and keeps creating and reading tickets on both nodes before, during and after the
// outage. While Redis is down: no 5xx, no request waits for Redis (each one made during the
// outage is answered before it ends), /readyz 200 saying "degraded", and every ready rings the
// page connected to the node that rings. Once Redis is back, both nodes rejoin without a restart
// and a ready on one node rings a page held by the other again.
//
// Nothing here is a stopwatch bound (those failed on a loaded machine): the test controls when
// the outage ends, so "did not wait for Redis" is "answered before Redis came back" (the load
// is held and its requests in flight drain before the outage ends), and
// "rejoined" is "said ready again, after which the next cross-node ring rings". The limits
// (REJOIN_BOUND_MS, the page's wait for a ring) only stop a broken node from hanging the test.
// With REDIS_OUTAGE=hang the connections stay open, so a node without its breaker would send
// every command to the stopped server: the test counts the commands the server took during the
// hang (INFO commandstats, read before the hang and right after it) instead.
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
import { connect } from 'node:net';

const OUTAGE_MS = Number(process.env.REDIS_OUTAGE_MS ?? 8000);
const HANG = process.env.REDIS_OUTAGE === 'hang';
const BEFORE_MS = 5000;
/** Concurrent clients of the load, each pausing this long between its requests. */
const CLIENTS = 4;
const PAUSE_MS = 20;
/**
 * Commands no request waits for: the breaker's probe, the test's INFO, and the live subscriber's
 * (it keeps its offline queue and no timeout by design, decision 0053).
 */
const NOT_REQUESTS = new Set(['ping', 'info', 'subscribe', 'unsubscribe', 'psubscribe', 'punsubscribe']);
/** How long both nodes may take to say "ready" again after Redis is back: far past the 1 s retry. */
const REJOIN_BOUND_MS = 30_000;
/** How long the requests in flight may take to drain at the end of the outage: only for a node that waits for Redis. */
const DRAIN_BOUND_MS = 20_000;
/** Cross-node rings tried once both nodes say ready (the first one should ring). */
const CROSS_NODE_TRIES = 3;

const skip =
  process.env.TEST_DATABASE_URL === undefined
    ? 'needs PostgreSQL (TEST_DATABASE_URL)'
    : !hasRedisServer()
      ? 'needs redis-server on PATH (its own, stopped and started by the test)'
      : false;

type Phase = 'warmup' | 'before' | 'outage' | 'after';
/** A request: in which phase it was made and in which it was answered. */
type Sample = { phase: Phase; answered: Phase; ms: number; status: number; what: string };

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

/** Commands the server has taken, by name (INFO commandstats), over a connection of the test's own. */
async function commandCounts(port: number): Promise<Record<string, number>> {
  const socket = connect(port, '127.0.0.1');
  try {
    socket.write('INFO commandstats\r\n');
    let text = '';
    for await (const chunk of socket) {
      text += chunk.toString();
      const header = /^\$(\d+)\r\n/.exec(text);
      if (header !== null && Buffer.byteLength(text) >= header[0].length + Number(header[1])) break;
    }
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
    return out;
  } finally {
    socket.destroy();
  }
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

test(`Redis ${HANG ? 'hung' : 'down'} for ${OUTAGE_MS / 1000} s under load on 2 nodes: no 5xx, nothing waits for Redis, /readyz 200 degraded, local rings ring, both nodes rejoin and ring across`, {
  skip,
  timeout: 180_000,
}, async (t) => {
  let redis: OwnRedis | null = null;
  let cluster: Cluster | null = null;
  let running = true;
  /** The clients make no new request while held; `inFlight` counts those made and not answered. */
  let holding = false;
  let inFlight = 0;
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
      inFlight++;
      // A request that gets no answer at all counts as status 0: a failure like a 5xx.
      const res = await node.request(method, path, { key, body }).catch(() => ({ status: 0, body: undefined }) as const);
      inFlight--;
      samples.push({ phase: at, answered: phase, ms: performance.now() - started, status: res.status, what });
      return res;
    };
    const client = async (i: number) => {
      for (let n = 0; running; n++) {
        while (holding && running) await sleep(10);
        const node = nodes[(i + n) % nodes.length]!;
        const made = await timed(node, 'POST', '/v1/tickets', 'create', {});
        if (made.status === 201) await timed(nodes[(i + n + 1) % nodes.length]!, 'GET', `/v1/tickets/${made.body.id}`, 'get');
        await sleep(PAUSE_MS);
      }
    };
    const readyz: Array<{ phase: Phase; node: string; status: number; body: string; redis: string }> = [];
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
          });
        }
        await sleep(250);
      }
    };
    load = [...Array.from({ length: CLIENTS }, (_, i) => client(i)), poll()];

    await sleep(1000);
    phase = 'before';
    const beforeAt = performance.now();
    await sleep(BEFORE_MS);

    const commandsBefore = HANG ? await commandCounts(redis.port) : {};
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
    // The load stops before Redis comes back: what is in flight must be answered while it is down.
    holding = true;
    const outageLoadMs = performance.now() - outageAt;
    const drainFrom = performance.now();
    while (inFlight > 0 && performance.now() - drainFrom < DRAIN_BOUND_MS) await sleep(10);
    const stuck = inFlight;
    // Requests answered from here on were answered after the outage, whatever Redis does next.
    phase = 'after';
    let commandsDuring: Record<string, number> = {};
    if (HANG) {
      redis.resume();
      // What the stopped server had been sent is read first on resuming; this connection comes after it.
      const after = await commandCounts(redis.port);
      commandsDuring = Object.fromEntries(
        Object.entries(after)
          .map(([name, n]) => [name, n - (commandsBefore[name] ?? 0)] as const)
          .filter(([name, n]) => n > 0 && !NOT_REQUESTS.has(name)),
      );
    } else {
      await redis.start();
    }
    holding = false;
    const back = performance.now();
    // Both nodes say ready again (they rejoin by themselves), then the cross-node ring rings.
    let rejoinedMs = Number.POSITIVE_INFINITY;
    while (performance.now() - back < REJOIN_BOUND_MS) {
      const now = await Promise.all(nodes.map((n) => n.request('GET', '/readyz').catch(() => ({ status: 0, body: undefined }) as const)));
      if (now.every((r) => r.status === 200 && r.body?.status === 'ready')) {
        rejoinedMs = performance.now() - back;
        break;
      }
      await sleep(100);
    }
    const attempts: string[] = [];
    let crossNode = false;
    for (let i = 0; i < CROSS_NODE_TRIES && Number.isFinite(rejoinedMs) && !crossNode; i++) {
      const r = await ringThrough(nodes[0]!, nodes[1]!, key);
      attempts.push(`${r.channel}${r.paged ? ' (page rang)' : ''}`);
      crossNode = r.channel === 'page' && r.paged;
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
      `local rings during the outage: ${local.length}; both nodes ready ${rejoinedMs.toFixed(0)} ms after Redis was back; cross-node rings then: ${attempts.join(', ')}`,
    );
    if (HANG) t.diagnostic(`commands requests sent to the hung server: ${JSON.stringify(commandsDuring)}`);

    const errors = samples.filter((s) => s.status >= 500);
    assert.deepEqual(errors, [], 'no 5xx');
    assert.ok(during.length > 20 && before.length > 20, 'the load ran through the outage');
    // Requests that each wait for Redis (its offline queue, a reconnect) cut the load's pace by an
    // order of magnitude (48 requests in 8 s against 611 in 5 s before): a count per phase, with
    // room for a machine whose load changes between the two phases.
    const pace = { before: before.length / (outageAt - beforeAt), during: during.length / outageLoadMs };
    assert.ok(
      pace.during >= pace.before / 4,
      `requests per second before ${(pace.before * 1000).toFixed(0)}, during the outage ${(pace.during * 1000).toFixed(0)}: not a quarter`,
    );
    assert.ok(
      samples.every((s) => s.status === 201 || s.status === 200),
      `every request served: ${JSON.stringify(samples.filter((s) => s.status >= 300).slice(0, 3))}`,
    );
    // A request that waited for Redis (an offline queue, a retry) is answered only once it is back.
    assert.equal(stuck, 0, `requests still unanswered ${DRAIN_BOUND_MS / 1000} s after the load stopped, Redis still down`);
    assert.deepEqual(
      during.filter((s) => s.answered !== 'outage').map((s) => `${s.what} ${s.ms.toFixed(0)} ms`),
      [],
      'every request made during the outage was answered before Redis came back',
    );
    if (HANG) {
      // Only what was asked before the first command timed out (at most a request or two per
      // client) reaches the hung server; once the breaker is open no request asks it anything.
      const sent = Object.values(commandsDuring).reduce((a, b) => a + b, 0);
      assert.ok(
        sent < during.length / 4,
        `commands sent to the hung Redis: ${sent} (${JSON.stringify(commandsDuring)}), for ${during.length} requests`,
      );
    }
    assert.ok(outageReadyz.length > 4);
    assert.deepEqual(
      outageReadyz.filter((r) => r.status !== 200),
      [],
      'both nodes stay in rotation',
    );
    // Each node says "degraded" from its first failed use of Redis to the end of the outage.
    for (const node of nodes) {
      const answers = outageReadyz.filter((r) => r.node === node.name).map((r) => `${r.body} redis=${r.redis}`);
      const first = answers.findIndex((a) => a.startsWith('degraded'));
      assert.ok(first >= 0 && answers.length - first >= 3, `${node.name} said degraded: ${JSON.stringify(counts(answers))}`);
      assert.deepEqual(
        answers.slice(first).filter((a) => !a.startsWith('degraded') || a.endsWith('redis=ok')),
        [],
        `${node.name} stays degraded until Redis is back`,
      );
    }
    assert.ok(local.length >= 4, `rings made during the outage: ${local.length}`);
    assert.deepEqual(
      local.filter((r) => r.channel !== 'page' || !r.paged),
      [],
      'no ring lost: each rang the page on its own node',
    );
    assert.ok(Number.isFinite(rejoinedMs), `both nodes ready again within ${REJOIN_BOUND_MS / 1000} s of Redis coming back`);
    assert.ok(crossNode, `a cross-node ring rings once both nodes say ready (tries: ${attempts.join(', ')})`);
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
