// Token buckets per API key (PRODUCT.md §8): the RateLimit fields on every /v1 answer, 429 when a
// bucket is empty, refill with time (a FakeClock: no sleeping), and what counts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { createTicket } from '../helpers/tickets.ts';
import { createApiKey } from '../../src/actions/provision.ts';

const POLICY = '"writes";q=120;w=120, "reads";q=600;w=60';
const clock = new FakeClock();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

const remaining = (res: Res): number => Number(/;r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]);
const write = (key: string, body: unknown = {}) => t.request('POST', '/v1/tickets', { key, body });

test('every /v1 answer carries both policies and the bucket it counted against', async () => {
  const { testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  const answers: Array<[Res, string]> = [
    [await t.request('GET', `/v1/tickets/${tk.id}`, { key: testKey }), '"reads";r=599;t=1'],
    [await t.request('GET', '/v1/tickets?limit=0', { key: testKey }), '"reads";r=598;t=1'], // 422
    [await t.request('GET', '/v1/tickets/tk_00000000000000000000000000', { key: testKey }), '"reads";r=597;t=1'], // 404
    [await write(testKey, { queue: 'Nope' }), '"writes";r=118;t=1'], // 422
    [await t.request('POST', `/v1/tickets/${tk.id}/ring`, { key: testKey }), '"writes";r=117;t=1'], // 409
    [await t.request('POST', `/v1/tickets/${tk.id}/ready`, { key: testKey }), '"writes";r=116;t=1'],
    [await t.request('GET', '/v1/events', { key: testKey }), '"reads";r=596;t=1'],
  ];
  for (const [res, field] of answers) {
    assert.equal(res.headers.get('ratelimit-policy'), POLICY);
    assert.equal(res.headers.get('ratelimit'), field, `${res.status} ${res.text.slice(0, 80)}`);
  }
});

test('the 121st write of a burst is 429 rate-limited; one token comes back each second', async () => {
  const { testKey } = await t.newTenant();
  for (let i = 0; i < 120; i++) {
    const res = await write(testKey);
    assert.equal(res.status, 201, `write ${i + 1}`);
    assert.equal(remaining(res), 119 - i);
  }
  const denied = await write(testKey);
  assert.equal(denied.status, 429);
  assert.equal(denied.body.code, 'rate-limited');
  assert.equal(denied.headers.get('retry-after'), '1');
  assert.deepEqual(denied.body.violated_policies, ['writes']);
  assert.equal(denied.headers.get('ratelimit'), '"writes";r=0;t=1');
  assert.equal(denied.headers.get('ratelimit-policy'), POLICY);

  clock.advance(500);
  assert.equal((await write(testKey)).status, 429, 'half a token is not a token');
  clock.advance(500);
  const refilled = await write(testKey);
  assert.equal(refilled.status, 201);
  assert.equal(refilled.headers.get('ratelimit'), '"writes";r=0;t=1');
  assert.equal((await write(testKey)).status, 429);

  clock.advance(5_000);
  for (let i = 0; i < 5; i++) assert.equal((await write(testKey)).status, 201);
  assert.equal((await write(testKey)).status, 429);

  // Reads have their own bucket: an empty write bucket does not stop them.
  const read = await t.request('GET', '/v1/tickets?limit=1', { key: testKey });
  assert.equal(read.status, 200);
  assert.equal(read.headers.get('ratelimit'), '"reads";r=599;t=1');
});

test('reads: 600 burst, then 429, refilled at 10 per second', async () => {
  const { testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  for (let i = 0; i < 600; i++) {
    const res = await t.request('GET', `/v1/tickets/${tk.id}`, { key: testKey });
    assert.equal(res.status, 200, `read ${i + 1}`);
  }
  const denied = await t.request('GET', `/v1/tickets/${tk.id}`, { key: testKey });
  assert.equal(denied.status, 429);
  assert.deepEqual(denied.body.violated_policies, ['reads']);
  assert.equal(denied.headers.get('retry-after'), '1');
  clock.advance(1000);
  for (let i = 0; i < 10; i++) assert.equal((await t.request('GET', `/v1/tickets/${tk.id}`, { key: testKey })).status, 200);
  assert.equal((await t.request('GET', `/v1/tickets/${tk.id}`, { key: testKey })).status, 429);
  assert.equal((await write(testKey)).status, 201, 'writes are still allowed');
});

test('errors, replays and refusals count', async () => {
  const { testKey } = await t.newTenant();
  const first = await t.request('POST', '/v1/tickets', { key: testKey, body: {}, headers: { 'idempotency-key': 'again' } });
  assert.equal(remaining(first), 119);
  const replay = await t.request('POST', '/v1/tickets', { key: testKey, body: {}, headers: { 'idempotency-key': 'again' } });
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(remaining(replay), 118);
  assert.equal(remaining(await write(testKey, { nope: 1 })), 117); // 422 unknown field
  assert.equal(
    remaining(await t.request('POST', '/v1/tickets', { key: testKey, raw: '{', headers: { 'content-type': 'application/json' } })),
    116,
  ); // 400
  assert.equal(remaining(await t.request('POST', '/v1/tickets', { key: testKey, body: {}, headers: { 'idempotency-key': '' } })), 115); // 400
  for (let i = 0; i < 115; i++) await write(testKey, { nope: 1 });
  const denied = await write(testKey);
  assert.equal(denied.status, 429, 'the bucket emptied by errors refuses a valid write');
});

test('buckets are per key: other keys of the same branch are unaffected', async () => {
  const tenant = await t.newTenant();
  const second = await t.app.services.db.write((tx) => createApiKey(tx, { branchId: tenant.branchId, mode: 'test' }, clock.now()));
  for (let i = 0; i < 120; i++) await write(tenant.testKey, { nope: 1 });
  assert.equal((await write(tenant.testKey)).status, 429);
  const other = await write(second.key);
  assert.equal(other.status, 201);
  assert.equal(other.headers.get('ratelimit'), '"writes";r=119;t=1');
  const live = await write(tenant.liveKey);
  assert.equal(live.status, 201);
  assert.equal(live.headers.get('ratelimit'), '"writes";r=119;t=1');
});
