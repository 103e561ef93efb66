// Idempotency-Key (PRODUCT.md §4): replays, reuse, scope, key syntax, which answers are stored,
// the 24 h memory, and the in-flight answer. Concurrency has its own file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { countRows, createTicket, GatedRinger, RingerStandIn, snapshot } from '../helpers/tickets.ts';
import type { Ringer } from '../../src/core/ring.ts';
import { NOBODY_REACHED } from '../../src/channels/ringer.ts';

const clock = new FakeClock();
const ringers = new RingerStandIn();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock, ringer: ringers.around });
});
after(() => t.close());

const idem = (key: string) => ({ 'idempotency-key': key });
const post = (path: string, key: string, body?: unknown, apiKey?: string) =>
  t.request('POST', path, { key: apiKey, body, headers: idem(key) });

test('a replay returns the same status and body, marked replayed, with no second effect', async () => {
  const { branchId, testKey } = await t.newTenant();
  const first = await post('/v1/tickets', 'order-1', { external_ref: 'o-1' }, testKey);
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const again = await post('/v1/tickets', 'order-1', { external_ref: 'o-1' }, testKey);
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.text, first.text);
  // The same JSON with its members in another order is the same request.
  const reordered = await t.request('POST', '/v1/tickets', {
    key: testKey,
    raw: '{ "external_ref" : "o-1" }',
    headers: { ...idem('order-1'), 'content-type': 'application/json' },
  });
  assert.equal(reordered.text, first.text);
  assert.equal(await countRows(t, 'tickets', branchId), 1);
  assert.equal(await countRows(t, 'events', branchId), 1);
});

test('same key with another body, path or method is 422 idempotency-key-reuse', async () => {
  const { branchId, testKey } = await t.newTenant();
  await post('/v1/tickets', 'k1', { external_ref: 'x' }, testKey);
  const a = await createTicket(t, { key: testKey });
  const b = await createTicket(t, { key: testKey });
  await post(`/v1/tickets/${a.id}/collect`, 'k2', undefined, testKey);
  await post('/v1/queues', 'k3', { name: 'B' }, testKey);
  const before = await snapshot(t, branchId);

  const tries = [
    () => post('/v1/tickets', 'k1', { external_ref: 'y' }, testKey), // other body
    () => post(`/v1/tickets/${b.id}/collect`, 'k2', undefined, testKey), // other path
    () => t.request('DELETE', '/v1/queues/B', { key: testKey, headers: idem('k3') }), // other method and path
  ];
  for (const attempt of tries) {
    const res = await attempt();
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'idempotency-key-reuse');
  }
  assert.deepEqual(await snapshot(t, branchId), before);
  assert.equal((await t.request('GET', `/v1/tickets/${b.id}`, { key: testKey })).body.status, 'created');
  assert.equal((await t.request('GET', '/v1/queues', { key: testKey })).body.data.length, 2);
});

test('same key, other method on the same path is a reuse too', async () => {
  const { testKey } = await t.newTenant();
  await post('/v1/queues', 'q', { name: 'C' }, testKey);
  const patched = await t.request('PATCH', '/v1/queues/C', { key: testKey, headers: idem('m') });
  assert.equal(patched.status, 200);
  const deleted = await t.request('DELETE', '/v1/queues/C', { key: testKey, headers: idem('m') });
  assert.equal(deleted.status, 422);
  assert.equal(deleted.body.code, 'idempotency-key-reuse');
});

test('keys are scoped to branch and mode', async () => {
  const tenant = await t.newTenant();
  const sibling = await t.newTenant({ accountId: tenant.accountId });
  const bodies = await Promise.all(
    [tenant.testKey, tenant.liveKey, sibling.testKey].map(async (k) => {
      const res = await post('/v1/tickets', 'shared-key', {}, k);
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('idempotent-replayed'), null);
      return res.body;
    }),
  );
  assert.equal(new Set(bodies.map((b) => b.id)).size, 3);
  assert.deepEqual(
    bodies.map((b) => b.livemode),
    [false, true, false],
  );
});

test('the quoted form "abc" names the same key as abc', async () => {
  const { testKey } = await t.newTenant();
  const quoted = await post('/v1/tickets', '"abc"', {}, testKey);
  const bare = await post('/v1/tickets', 'abc', {}, testKey);
  assert.equal(bare.headers.get('idempotent-replayed'), 'true');
  assert.equal(bare.text, quoted.text);
});

test('a malformed key is 400 and changes nothing', async () => {
  const { branchId, testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  const before = await snapshot(t, branchId);
  for (const bad of ['', '   ', 'x'.repeat(256), `"${'x'.repeat(256)}"`, 'clé', '"unterminated', '""']) {
    for (const path of ['/v1/tickets', `/v1/tickets/${tk.id}/ready`]) {
      const res = await t.request('POST', path, { key: testKey, body: {}, headers: idem(bad) });
      assert.equal(res.status, 400, `${JSON.stringify(bad)} on ${path}: ${res.text}`);
      assert.equal(res.body.code, 'bad-request');
      assert.deepEqual(
        res.body.errors.map((e: { pointer: string }) => e.pointer),
        ['/headers/idempotency-key'],
      );
    }
  }
  assert.deepEqual(await snapshot(t, branchId), before);
  assert.equal((await post('/v1/tickets', 'x'.repeat(255), {}, testKey)).status, 201, 'a key of 255 is fine');
});

test('4xx answers of actions are stored and replayed', async () => {
  const { branchId, testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  await t.request('POST', `/v1/tickets/${tk.id}/collect`, { key: testKey });
  const conflict = await post(`/v1/tickets/${tk.id}/ready`, 'r1', undefined, testKey);
  assert.equal(conflict.status, 409);
  const replay = await post(`/v1/tickets/${tk.id}/ready`, 'r1', undefined, testKey);
  assert.equal(replay.status, 409);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.text, conflict.text);

  // A create refused for an unknown queue stays refused under its key, even once the queue exists.
  const refused = await post('/v1/tickets', 'c1', { queue: 'Later' }, testKey);
  assert.equal(refused.status, 422);
  await t.request('POST', '/v1/queues', { key: testKey, body: { name: 'Later' } });
  const still = await post('/v1/tickets', 'c1', { queue: 'Later' }, testKey);
  assert.equal(still.status, 422);
  assert.equal(still.text, refused.text);
  assert.equal(await countRows(t, 'tickets', branchId), 1);
});

test('a ring refused as too soon (429) is not stored: the retry with the same key after Retry-After rings', async () => {
  const { branchId, testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  assert.equal((await post(`/v1/tickets/${tk.id}/ready`, 'ready-cool', undefined, testKey)).status, 200);
  clock.advance(3_000);
  const tooSoon = await post(`/v1/tickets/${tk.id}/ring`, 'ring-cool', undefined, testKey);
  assert.equal(tooSoon.status, 429, tooSoon.text);
  assert.equal(tooSoon.body.code, 'rate-limited');
  assert.equal(tooSoon.headers.get('retry-after'), '7');
  assert.equal(await countRows(t, 'idempotency_keys', branchId), 1, 'only the ready holds its key');

  // As the integrator guide says: same key, after Retry-After.
  clock.advance(7_000);
  const rung = await post(`/v1/tickets/${tk.id}/ring`, 'ring-cool', undefined, testKey);
  assert.equal(rung.status, 200, rung.text);
  assert.equal(rung.headers.get('idempotent-replayed'), null);
  assert.equal(rung.body.ticket.rings, 2);
  // From now on the key holds the ring's answer, and a repeat rings nobody again.
  clock.advance(60_000);
  const replay = await post(`/v1/tickets/${tk.id}/ring`, 'ring-cool', undefined, testKey);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.text, rung.text);
  assert.equal(await countRows(t, 'rings', branchId), 2);
});

test('5xx answers are not stored: a retry with the same key tries again', async () => {
  // An app of its own, whose first recorded event fails its transaction as a store failure would.
  let failures = 1;
  const tf = await startTestApp({
    events: (sink) => ({
      record: async (event, out) => {
        if (failures-- > 0) throw new Error('simulated store failure');
        return sink.record(event, out);
      },
    }),
  });
  try {
    const { branchId, testKey } = tf.tenant;
    const postTo = (key: string) => tf.request('POST', '/v1/tickets', { key: testKey, body: {}, headers: idem(key) });
    const failed = await postTo('boom');
    assert.equal(failed.status, 500);
    assert.equal(failed.body.code, 'internal');
    assert.equal(await countRows(tf, 'tickets', branchId), 0);
    assert.equal(await countRows(tf, 'idempotency_keys', branchId), 0);
    const retried = await postTo('boom');
    assert.equal(retried.status, 201);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    assert.equal((await postTo('boom')).text, retried.text);
    assert.equal(await countRows(tf, 'tickets', branchId), 1);
  } finally {
    await tf.close();
  }
});

test('a ready whose ring failed with a 5xx is finished, not repeated, by its retry', async () => {
  const { branchId, testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  let calls = 0;
  const flaky: Ringer = { ring: async () => (++calls === 1 ? Promise.reject(new Error('channel crashed')) : NOBODY_REACHED) };
  ringers.use(flaky);
  try {
    const failed = await post(`/v1/tickets/${tk.id}/ready`, 'ready-1', undefined, testKey);
    assert.equal(failed.status, 500);
    const retried = await post(`/v1/tickets/${tk.id}/ready`, 'ready-1', undefined, testKey);
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.ticket.status, 'ready');
    assert.equal(retried.body.ticket.rings, 1);
    assert.equal(calls, 2);
    const replay = await post(`/v1/tickets/${tk.id}/ready`, 'ready-1', undefined, testKey);
    assert.equal(replay.text, retried.text);
    assert.equal(calls, 2);
    const types = (await t.request('GET', '/v1/events?limit=100', { key: testKey })).body.data.map((e: any) => e.type);
    assert.deepEqual(types.sort(), ['ticket.created', 'ticket.ready', 'ticket.rung']);
    assert.equal(await countRows(t, 'rings', branchId), 1);
  } finally {
    ringers.restore();
  }
});

test('keys are forgotten after 24 hours, and the sweep deletes them', async () => {
  const { branchId, testKey } = await t.newTenant();
  const first = await post('/v1/tickets', 'daily', {}, testKey);
  clock.advance(24 * 3600_000 - 1000);
  assert.equal((await post('/v1/tickets', 'daily', {}, testKey)).text, first.text);
  clock.advance(1000);
  assert.equal((await post('/v1/tickets', 'daily', {}, testKey)).text, first.text, 'still remembered at exactly 24 h');
  clock.advance(1);
  const later = await post('/v1/tickets', 'daily', {}, testKey);
  assert.equal(later.status, 201);
  assert.equal(later.headers.get('idempotent-replayed'), null);
  assert.notEqual(later.body.id, first.body.id);

  await post('/v1/tickets', 'other', {}, testKey);
  assert.equal(await countRows(t, 'idempotency_keys', branchId), 2);
  clock.advance(24 * 3600_000 + 1);
  await t.app.maintenance.sweep();
  assert.equal(await countRows(t, 'idempotency_keys', branchId), 0);
});

test('a repeat waits for a request in flight and gets its answer', async () => {
  const { testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  const ringer = new GatedRinger();
  ringers.use(ringer);
  try {
    const first = post(`/v1/tickets/${tk.id}/ready`, 'slow', undefined, testKey);
    await ringer.entered.promise;
    const second = post(`/v1/tickets/${tk.id}/ready`, 'slow', undefined, testKey);
    ringer.gate.resolve();
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual([a.status, b.status], [200, 200]);
    assert.equal(b.text, a.text);
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    assert.equal(ringer.calls, 1);
  } finally {
    ringers.restore();
  }
});

test('with IDEMPOTENCY_WAIT_MS=0 a repeat in flight is 409 idempotency-key-in-use with Retry-After', async () => {
  const ringer = new GatedRinger();
  const t0 = await startTestApp({ env: { IDEMPOTENCY_WAIT_MS: '0' }, ringer: () => ringer });
  try {
    const tk = await createTicket(t0);
    const first = t0.request('POST', `/v1/tickets/${tk.id}/ready`, { headers: idem('busy') });
    await ringer.entered.promise;
    const busy = await t0.request('POST', `/v1/tickets/${tk.id}/ready`, { headers: idem('busy') });
    assert.equal(busy.status, 409);
    assert.equal(busy.body.code, 'idempotency-key-in-use');
    assert.equal(busy.headers.get('retry-after'), '1');
    assert.equal(busy.body.retry_after, 1);
    ringer.gate.resolve();
    const done = await first;
    assert.equal(done.status, 200);
    const replay = await t0.request('POST', `/v1/tickets/${tk.id}/ready`, { headers: idem('busy') });
    assert.equal(replay.text, done.text);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(ringer.calls, 1);
  } finally {
    await t0.close();
  }
});
