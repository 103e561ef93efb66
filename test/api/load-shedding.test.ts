// Under overload a node answers 503 unavailable with Retry-After at once instead of queueing
// (issue 16, item 5), while health, readiness, the live streams and the rings' confirmations are
// still served. The overload is real: the test keeps this process's event loop busy, in blocks
// far longer than SHED_EVENT_LOOP_DELAY_MS, and the node samples its delay every SAMPLE_MS.
// One engine: shedding is decided by the event loop's delay, before any handler runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Res } from '../helpers/app.ts';
import { openBoard, openPage } from '../helpers/live.ts';
import { openSse } from '../helpers/sse-client.ts';
import { countRows } from '../helpers/tickets.ts';
import { eventually } from '../helpers/eventually.ts';

const SAMPLE_MS = 20;
const LIMIT_MS = 50;
let t: TestApp;
before(async () => {
  // RING_DEADLINE_MS 0: ready answers at once and leaves the page's ring to be confirmed later.
  t = await startTestApp({
    env: { SHED_EVENT_LOOP_DELAY_MS: String(LIMIT_MS), SHED_SAMPLE_INTERVAL_MS: String(SAMPLE_MS), RING_DEADLINE_MS: '0' },
  });
});
after(() => t.close());

/** Blocks the event loop `blockMs` at a time, with a moment for I/O between: every request is delayed by that much. */
function overload(blockMs = 2 * LIMIT_MS): () => void {
  const timer = setInterval(() => {
    const end = performance.now() + blockMs;
    while (performance.now() < end);
  }, 1);
  return () => clearInterval(timer);
}

/** What a well-behaved client does with a 503: come back after Retry-After (here: at once, until it is served). */
async function served(method: string, path: string, opts: Parameters<TestApp['request']>[2] = {}): Promise<Res> {
  let res!: Res;
  await eventually(async () => (res = await t.request(method, path, opts)).status !== 503, `${method} ${path} to be served`);
  return res;
}

function assertShed(res: Res): void {
  assert.equal(res.status, 503, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, 'unavailable');
  assert.equal(res.body.type, '/problems/unavailable');
  assert.match(res.body.detail, /overloaded/);
  assert.equal(res.headers.get('retry-after'), '1');
  assert.equal(res.body.retry_after, 1);
  assert.match(res.body.request_id, /^req_/);
  assert.equal(res.body.request_id, res.headers.get('request-id'));
}

test('an overloaded node answers 503 unavailable with Retry-After, keeps nothing of a refused create, and recovers', async () => {
  const before = await countRows(t, 'tickets', t.tenant.branchId);
  const key = `shed-${Date.now()}`;
  const stop = overload();
  let shed!: Res;
  try {
    await eventually(async () => (shed = await t.request('GET', '/v1/tickets')).status === 503, 'the node to shed');
    assertShed(shed);
    assertShed(await t.request('POST', '/v1/tickets', { body: {}, headers: { 'idempotency-key': key } }));
    assert.equal(await countRows(t, 'tickets', t.tenant.branchId), before, 'a refused create leaves nothing behind');
  } finally {
    stop();
  }
  // The retry with the same key performs the create: a 503 is never kept as the key's answer.
  const retried = await served('POST', '/v1/tickets', { body: {}, headers: { 'idempotency-key': key } });
  assert.equal(retried.status, 201, retried.text);
  assert.equal(retried.headers.get('idempotent-replayed'), null);
  assert.equal(await countRows(t, 'tickets', t.tenant.branchId), before + 1);
});

test('while it sheds, a node still answers health and readiness, opens live streams and takes ring confirmations', async () => {
  const ticket = (await served('POST', '/v1/tickets', { body: {} })).body;
  const display = (await served('POST', '/v1/displays', { body: { name: 'Counter TV' } })).body;
  const page = await openPage(t, ticket.url, { ack: false });
  assert.equal((await served('POST', `/v1/tickets/${ticket.id}/ready`)).status, 200);
  const ring = (await page.next('ring')).data.ring_id as string;

  const stop = overload();
  try {
    await eventually(async () => (await t.request('GET', '/v1/branch')).status === 503, 'the node to shed');
    const health = await t.request('GET', '/healthz', { key: null });
    assert.equal(health.status, 200);
    const ready = await t.request('GET', '/readyz', { key: null });
    assert.equal(ready.status, 200, 'a shedding node stays in the load balancer: it still takes what it can');
    assert.equal(ready.body.load, 'shedding');

    const again = await openPage(t, ticket.url, { ack: false });
    assert.equal(again.snapshot.status, 'ready');
    const board = await openBoard(t, display.url, null);
    assert.equal(board.status, 200);
    const staff = await openSse(`${t.url}/v1/stream`, { authorization: `Bearer ${t.tenant.testKey}` });
    assert.equal(staff.status, 200);
    await staff.next('ready');

    const ack = await t.request('POST', `${page.base}/ring-ack`, { key: null, body: { ring_id: ring } });
    assert.equal(ack.status, 204, ack.text);
    const spoke = await t.request('POST', `${board.base}/ack`, { key: null, body: { ring_id: ring, spoke: true } });
    assert.equal(spoke.status, 204, spoke.text);
    assertShed(await t.request('GET', ticket.url.replace('http://localhost:3000', ''), { key: null }));
    for (const s of [page, again, board, staff]) s.close();
  } finally {
    stop();
  }
  await eventually(
    async () => (await t.request('GET', '/readyz', { key: null })).body.load === 'ok',
    'readiness to report the node recovered',
  );
});
