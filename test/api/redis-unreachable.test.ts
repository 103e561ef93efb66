// A node whose Redis cannot be reached serves, degraded (decision 0053): it starts, /readyz
// answers 200 saying so, rate limits hold per node, and a ready rings the page connected to it
// through its own bus. Runs on both stores: the Redis here is a closed port, no server needed.
// (test/cluster/redis-outage.test.ts takes a real Redis away from 2 nodes under load.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openPage } from '../helpers/live.ts';
import { FakeClock } from '../helpers/clock.ts';

const WAIT_FOR_REDIS_MS = 20_000;

let t: TestApp;
before(async () => {
  // A Redis command may wait REDIS_COMMAND_TIMEOUT_MS for its answer: 20 s here, so that a request
  // which waited for Redis at all would take longer than any busy machine makes a ready.
  // On a fake clock: the buckets refill by the test's time, not by how long a busy machine takes.
  t = await startTestApp({
    clock: new FakeClock(),
    env: {
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_RETRY_MS: '100',
      REDIS_COMMAND_TIMEOUT_MS: String(WAIT_FOR_REDIS_MS),
      RATE_LIMIT_WRITES_BURST: '5',
    },
  });
});
after(() => t?.close());

test('/readyz is 200 and says degraded while Redis is unreachable; the store is what makes it 503', async () => {
  const res = await t.request('GET', '/readyz', { key: null });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.status, 'degraded');
  assert.deepEqual(res.body.checks, { store: 'ok', redis: 'unavailable' });
  assert.match(await t.app.services.metrics!.registry.getSingleMetricAsString('readybell_redis_up'), /^readybell_redis_up 0$/m);
});

test("without Redis a ready rings the page held by this node, and a key's writes are limited by this node's buckets", async () => {
  const tenant = await t.newTenant();
  const ticket = await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: {} });
  assert.equal(ticket.status, 201, ticket.text);
  const page = await openPage(t, ticket.body.url);
  try {
    const started = performance.now();
    const ready = await t.request('POST', `/v1/tickets/${ticket.body.id}/ready`, { key: tenant.testKey });
    assert.equal(ready.status, 200, ready.text);
    assert.deepEqual([ready.body.rang, ready.body.channel_used], [true, 'page']);
    assert.equal((await page.next('ring')).data.reason, 'ready');
    // Half the command timeout: a fixed 1 s failed on a CI machine at load 25 with nothing waiting.
    const ms = performance.now() - started;
    assert.ok(ms < WAIT_FOR_REDIS_MS / 2, `nothing waited for Redis (${ms.toFixed(0)} ms)`);
  } finally {
    page.close();
  }
  // 5 writes of burst: 2 used above, 3 more pass, the next is refused.
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: {} })).status);
  assert.deepEqual(statuses, [201, 201, 201, 429]);
});
