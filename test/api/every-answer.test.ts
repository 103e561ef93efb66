// Every answer of the service is a problem document or a proper response, including those that
// Node or Fastify would give by themselves (no Host, a closing server), HEAD on an event stream,
// and /v1's unknown routes and wrong methods, which carry the RateLimit fields like every other
// API answer (PRODUCT.md §8).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertProblemAnswer, rawExchange } from '../helpers/raw-http.ts';
import { createTicket, GatedRinger } from '../helpers/tickets.ts';
import { pathOf } from '../helpers/live.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeClock } from '../helpers/clock.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('an HTTP/1.1 request without Host: a 400 problem document, and the connection is closed', async () => {
  for (const path of ['/healthz', '/v1/branch', '/t/ABC']) {
    const [answer, ...more] = await rawExchange(t.url, `GET ${path} HTTP/1.1\r\nAuthorization: Bearer ${t.tenant.testKey}\r\n\r\n`);
    assertProblemAnswer(answer!, 400, 'bad-request');
    assert.match(JSON.parse(answer!.body).detail, /Host/);
    assert.equal(answer!.headers.get('connection'), 'close');
    assert.deepEqual(more, []);
  }
});

test('an HTTP/1.0 request needs no Host and gets its ordinary answer', async () => {
  const [health] = await rawExchange(t.url, 'GET /healthz HTTP/1.0\r\n\r\n');
  assert.equal(health!.status, 200);
  assert.deepEqual(JSON.parse(health!.body), { status: 'ok' });

  const [branch] = await rawExchange(t.url, `GET /v1/branch HTTP/1.0\r\nAuthorization: Bearer ${t.tenant.testKey}\r\n\r\n`);
  assert.equal(branch!.status, 200, branch!.body);
  assert.equal(JSON.parse(branch!.body).id, t.tenant.branchId);
  assert.match(branch!.headers.get('ratelimit') ?? '', /^"reads";r=\d+/);

  const [missing] = await rawExchange(t.url, `GET /v1/nothing HTTP/1.0\r\nAuthorization: Bearer ${t.tenant.testKey}\r\n\r\n`);
  assertProblemAnswer(missing!, 404, 'not-found');
});

test('HEAD on an event stream answers its headers at once (API stream, customer page, board)', async () => {
  const tk = await createTicket(t);
  const display = await t.request('POST', '/v1/displays', { body: { name: 'Counter' } });
  assert.equal(display.status, 201, display.text);
  for (const [path, auth] of [
    ['/v1/stream', true],
    [`${pathOf(tk.url)}/events`, false],
    [`${pathOf(display.body.url)}/events`, false],
  ] as const) {
    const res = await fetch(t.url + path, {
      method: 'HEAD',
      headers: auth ? { authorization: `Bearer ${t.tenant.testKey}` } : {},
      signal: AbortSignal.timeout(5_000),
    });
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/, path);
    assert.equal(res.headers.get('cache-control'), 'no-store', path);
    assert.equal(await res.text(), '', path);
  }
  // HEAD of the API stream is an API request like the others: authenticated and counted.
  const anonymous = await fetch(`${t.url}/v1/stream`, { method: 'HEAD', signal: AbortSignal.timeout(5_000) });
  assert.equal(anonymous.status, 401);
});

test('/v1 unknown routes (404) and wrong methods (405) carry the RateLimit fields and count', async (ctx) => {
  // A clock that stands still: no token comes back between the requests, however slow the machine.
  const t = await startTestApp({ clock: new FakeClock() });
  ctx.after(() => t.close());
  const { testKey } = await t.newTenant();
  const cases = [
    ['GET', '/v1/nothing-here', 404, 'reads'],
    ['POST', '/v1/nothing-here', 404, 'writes'],
    ['PUT', '/v1/branch', 405, 'writes'],
    ['DELETE', '/v1/tickets', 405, 'writes'],
    ['GET', '/v1', 404, 'reads'],
  ] as const;
  const left = { reads: 600, writes: 120 };
  for (const [method, path, status, bucket] of cases) {
    const res = await t.request(method, path, { key: testKey, body: method === 'GET' ? undefined : {} });
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    assert.match(res.headers.get('ratelimit-policy') ?? '', /"writes";q=\d+;w=\d+, "reads";q=\d+;w=\d+/, `${method} ${path}`);
    left[bucket]--;
    assert.match(res.headers.get('ratelimit') ?? '', new RegExp(`^"${bucket}";r=${left[bucket]}(;|$)`), `${method} ${path}`);
  }
  // Like any /v1 request, they need credentials first.
  const anonymous = await t.request('GET', '/v1/nothing-here', { key: null });
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.code, 'unauthenticated');
});

test('a request that reaches a closing server gets a 503 problem document; the one in flight finishes', async () => {
  const ringer = new GatedRinger();
  const node = await startTestApp({ ringer: () => ringer });
  const tk = await createTicket(node);
  const head = `Host: x\r\nAuthorization: Bearer ${node.tenant.testKey}\r\n\r\n`;
  let closed: Promise<void> = Promise.resolve();
  const [ready, late, ...more] = await rawExchange(node.url, async (write) => {
    // A ready held in flight by its ring keeps this connection open while the server closes;
    // the request written behind it then meets the closing server.
    write(`POST /v1/tickets/${tk.id}/ready HTTP/1.1\r\n${head}`);
    await ringer.entered.promise;
    closed = node.close();
    try {
      await eventually(() => !node.app.server.server.listening, 'the server to stop listening');
      write(`GET /v1/branch HTTP/1.1\r\n${head}`);
    } finally {
      ringer.gate.resolve();
    }
  }).finally(() => ringer.gate.resolve());
  await closed;
  assert.equal(ready!.status, 200, ready!.body);
  assert.equal(JSON.parse(ready!.body).ticket.status, 'ready');
  assertProblemAnswer(late!, 503, 'unavailable');
  assert.equal(late!.headers.get('retry-after'), '1');
  assert.equal(late!.headers.get('connection'), 'close');
  assert.deepEqual(more, []);
});
