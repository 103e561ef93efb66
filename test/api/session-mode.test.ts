// A staff session acts on test data when a request sends `Readybell-Mode: test`, exactly as an
// rk_test_ key does, and on live data otherwise; an API key can never have its mode chosen by a
// request (docs/decisions/0003-modes-and-tenancy.md, 0008-staff-page.md).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { asSession, signInOk, type Signed } from '../helpers/session.ts';
import { fakeLookup } from '../helpers/webhooks.ts';
import { openSse } from '../helpers/sse-client.ts';

let t: TestApp;
let owner: Signed;
before(async () => {
  t = await startTestApp({ webhookLookup: fakeLookup({ 'pos.example.com': '93.184.216.34' }) });
  owner = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
});
after(() => t.close());

const TEST = { 'readybell-mode': 'test' };
const LIVE = { 'readybell-mode': 'live' };
const session = (method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}) =>
  asSession(t, owner)(method, path, o);
const ids = (list: { body: { data: Array<{ id: string }> } }): string[] => list.body.data.map((x) => x.id);

test('a session in test mode sees test tickets and not live ones; without the header (or with live) the reverse', async () => {
  const testTicket = (await t.request('POST', '/v1/tickets', { key: t.tenant.testKey, body: { external_ref: 'made-with-test-key' } })).body;
  const liveTicket = (await t.request('POST', '/v1/tickets', { key: t.tenant.liveKey, body: { external_ref: 'made-with-live-key' } })).body;

  const inTest = await session('GET', '/v1/tickets', { headers: TEST });
  assert.equal(inTest.status, 200);
  assert.ok(ids(inTest).includes(testTicket.id));
  assert.ok(!ids(inTest).includes(liveTicket.id));
  assert.equal((await session('GET', `/v1/tickets/${testTicket.id}`, { headers: TEST })).status, 200);
  assert.equal(
    (await session('GET', `/v1/tickets/${liveTicket.id}`, { headers: TEST })).status,
    404,
    'a live ticket does not exist in test mode',
  );
  assert.equal((await session('POST', `/v1/tickets/${liveTicket.id}/ready`, { headers: TEST, body: {} })).status, 404);

  for (const headers of [{}, LIVE]) {
    const inLive = await session('GET', '/v1/tickets', { headers });
    assert.ok(ids(inLive).includes(liveTicket.id));
    assert.ok(!ids(inLive).includes(testTicket.id));
    assert.equal((await session('GET', `/v1/tickets/${testTicket.id}`, { headers })).status, 404);
    assert.equal((await session('POST', `/v1/tickets/${testTicket.id}/cancel`, { headers, body: {} })).status, 404);
  }
  assert.equal(
    (await t.request('GET', `/v1/tickets/${testTicket.id}`, { key: t.tenant.testKey })).body.status,
    'created',
    'nothing was changed across modes',
  );
});

test('what a session makes in test mode is test data: the test key sees it, the live key does not', async () => {
  const made = await session('POST', '/v1/tickets', { headers: TEST, body: { external_ref: 'counter-test' } });
  assert.equal(made.status, 201);
  assert.equal(made.body.livemode, false);
  assert.equal((await t.request('GET', `/v1/tickets/${made.body.id}`, { key: t.tenant.testKey })).status, 200);
  assert.equal((await t.request('GET', `/v1/tickets/${made.body.id}`, { key: t.tenant.liveKey })).status, 404);
  const ready = await session('POST', `/v1/tickets/${made.body.id}/ready`, { headers: TEST, body: {} });
  assert.equal(ready.status, 200);
  assert.equal(ready.body.ticket.livemode, false);

  const live = await session('POST', '/v1/tickets', { body: {} });
  assert.equal(live.body.livemode, true);
});

test('webhook endpoints and displays made with a test key show in test mode only', async () => {
  const endpoint = (
    await t.request('POST', '/v1/webhook_endpoints', { key: t.tenant.testKey, body: { url: 'https://pos.example.com/hook' } })
  ).body;
  const display = (await t.request('POST', '/v1/displays', { key: t.tenant.testKey, body: { name: 'Test TV' } })).body;
  assert.ok(ids(await session('GET', '/v1/webhook_endpoints', { headers: TEST })).includes(endpoint.id));
  assert.ok(!ids(await session('GET', '/v1/webhook_endpoints')).includes(endpoint.id));
  assert.ok(ids(await session('GET', '/v1/displays', { headers: TEST })).includes(display.id));
  assert.ok(!ids(await session('GET', '/v1/displays')).includes(display.id));
  assert.equal((await session('DELETE', `/v1/displays/${display.id}`)).status, 404, 'a live-mode request cannot delete a test display');
  assert.equal((await session('DELETE', `/v1/displays/${display.id}`, { headers: TEST })).status, 200);
});

test('the session says which mode each request acted in', async () => {
  assert.equal((await session('GET', '/v1/session')).body.mode, 'live');
  assert.equal((await session('GET', '/v1/session', { headers: TEST })).body.mode, 'test');
  const signed = await t.request('POST', '/v1/sessions', {
    key: null,
    body: { email: t.tenant.ownerEmail, password: t.tenant.ownerPassword },
    headers: TEST,
  });
  assert.equal(signed.body.mode, 'test');
});

test('the live stream follows the mode of the request that opened it', async () => {
  const testStream = await openSse(`${t.url}/v1/stream`, { cookie: owner.cookie, ...TEST });
  const liveStream = await openSse(`${t.url}/v1/stream`, { cookie: owner.cookie });
  try {
    assert.equal((await testStream.next('ready')).data.livemode, false);
    assert.equal((await liveStream.next('ready')).data.livemode, true);
    const make = async (key: string) => (await t.request('POST', '/v1/tickets', { key, body: {} })).body.id as string;
    const [live1, test1, live2, test2] = [
      await make(t.tenant.liveKey),
      await make(t.tenant.testKey),
      await make(t.tenant.liveKey),
      await make(t.tenant.testKey),
    ];
    // Each stream's events arrive in order: once the last one is in, any leaked one would be too.
    await testStream.next('message', (d) => d.ticket_id === test2);
    await liveStream.next('message', (d) => d.ticket_id === live2);
    const seen = (s: typeof testStream) => s.all.filter((e) => e.event === 'message').map((e) => e.data.ticket_id);
    assert.deepEqual(seen(testStream), [test1, test2], 'the test stream carries test tickets only');
    assert.deepEqual(seen(liveStream), [live1, live2], 'the live stream carries live tickets only');
  } finally {
    testStream.close();
    liveStream.close();
  }
});

test('an API key cannot choose its mode: a request with the header is refused (400), whichever value', async () => {
  const before = (await t.request('GET', '/v1/tickets', { key: t.tenant.liveKey })).body.data.length;
  for (const key of [t.tenant.liveKey, t.tenant.testKey]) {
    for (const value of ['test', 'live']) {
      for (const [method, path, body] of [
        ['GET', '/v1/tickets'],
        ['POST', '/v1/tickets', {}],
        ['GET', '/v1/stream'],
      ] as const) {
        const res = await t.request(method, path, { key, body, headers: { 'readybell-mode': value } });
        assert.equal(res.status, 400, `${method} ${path} with ${key.slice(0, 8)} and ${value}`);
        assert.equal(res.body.code, 'bad-request');
        assert.deepEqual(
          res.body.errors.map((e: { pointer: string }) => e.pointer),
          ['/headers/readybell-mode'],
        );
        assert.match(res.body.detail, /staff sessions only/);
      }
    }
  }
  // A key and a session cookie together: the key decides, so the header is still refused.
  const both = await t.request('GET', '/v1/tickets', { key: t.tenant.liveKey, headers: { cookie: owner.cookie, ...TEST } });
  assert.equal(both.status, 400);
  assert.equal((await t.request('GET', '/v1/tickets', { key: t.tenant.liveKey })).body.data.length, before, 'nothing was created');
});

test('a malformed mode is a clear 400, never a silent fallback to live', async () => {
  for (const value of ['TEST', 'sandbox', '', 'test, live']) {
    const res = await session('POST', '/v1/tickets', { headers: { 'readybell-mode': value }, body: {} });
    assert.equal(res.status, 400, JSON.stringify(value));
    assert.equal(res.body.code, 'bad-request');
    assert.match(res.body.detail, /`live` or `test`/);
  }
});
