// A POS, a proxy in front of readybell (nginx's $request_id) or a tracing tool that sends
// X-Request-Id finds the same id in the answer (Request-Id and X-Request-Id), in a problem's
// request_id, in the events the request caused and in readybell's log lines, so one id follows the
// request through both systems. An id outside the bounds (1 to 128 printable ASCII characters, no
// spaces: decision 0067) is ignored, never refused: the request is served under a fresh id.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const logLines: Array<{ reqId?: string; msg?: string }> = [];
let t: TestApp;
before(async () => {
  t = await startTestApp({
    env: { LOG_LEVEL: 'info' },
    logDestination: { write: (line: string) => void logLines.push(JSON.parse(line)) },
  });
});
after(() => t.close());

const FRESH = /^req_[A-Za-z0-9_-]{16}$/;

test("the caller's X-Request-Id is the request's id: echoed, in problems, in events and in the logs", async () => {
  const id = 'pos-7/order-1001:create#1';
  const created = await t.request('POST', '/v1/tickets', { body: {}, headers: { 'x-request-id': id, 'idempotency-key': 'rid-1' } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers.get('request-id'), id);
  assert.equal(created.headers.get('x-request-id'), id);

  const events = await t.request('GET', '/v1/events?type=ticket.created&limit=100');
  assert.equal(events.status, 200, events.text);
  const event = (events.body.data as Array<{ data: { object: { id: string } }; request: unknown }>).find(
    (e) => e.data.object.id === created.body.id,
  );
  assert.deepEqual(event?.request, { id, idempotency_key: 'rid-1' });

  const missing = await t.request('GET', '/v1/tickets/tk_01m81j19a75aagw39z4av2ch96', { headers: { 'x-request-id': 'lookup-42' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.request_id, 'lookup-42');
  assert.equal(missing.headers.get('x-request-id'), 'lookup-42');
  // Refused before any route runs (no key): still the caller's id.
  const refused = await t.request('GET', '/v1/branch', { key: null, headers: { 'x-request-id': 'no-key-1' } });
  assert.equal(refused.status, 401);
  assert.equal(refused.body.request_id, 'no-key-1');

  const mine = logLines.filter((l) => l.reqId === id).map((l) => l.msg);
  assert.ok(mine.includes('incoming request') && mine.includes('request completed'), JSON.stringify(mine));
});

test('an X-Request-Id out of bounds is ignored, never refused: the request gets a fresh id', async () => {
  const longest = 'x'.repeat(128);
  assert.equal((await t.request('GET', '/v1/branch', { headers: { 'x-request-id': longest } })).headers.get('request-id'), longest);
  for (const sent of ['x'.repeat(129), 'order 1001', 'caf\u00e9', '']) {
    const res = await t.request('GET', '/v1/branch', { headers: { 'x-request-id': sent } });
    assert.equal(res.status, 200, JSON.stringify(sent));
    const id = res.headers.get('request-id') ?? '';
    assert.match(id, FRESH, JSON.stringify(sent));
    // The caller sent one, so the answer says which id the request went by.
    assert.equal(res.headers.get('x-request-id'), id, JSON.stringify(sent));
  }
});

test('without X-Request-Id every request gets a fresh id, and the answer has no X-Request-Id', async () => {
  const a = await t.request('GET', '/v1/branch');
  const b = await t.request('GET', '/v1/branch');
  assert.match(a.headers.get('request-id') ?? '', FRESH);
  assert.notEqual(a.headers.get('request-id'), b.headers.get('request-id'));
  assert.equal(a.headers.get('x-request-id'), null);
});
