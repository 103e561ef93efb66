// Strings no store can hold (a NUL character, a lone UTF-16 surrogate) and bodies nested without
// end are refused at the edge, the same way on both stores, on every route: 422 in a body or a
// query, 404 in a path, 400 for depth. Never a 500, and nothing is written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { createTicket, snapshot } from '../helpers/tickets.ts';
import { registeredRoutes } from '../helpers/routes.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_WRITES_BURST: '100000', RATE_LIMIT_READS_BURST: '100000' } });
});
after(() => t.close());

const json = { 'content-type': 'application/json' };

function assertRefused(res: Res, status: number, code: string, label: string): void {
  assert.equal(res.status, status, `${label}: ${res.text.slice(0, 300)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, label);
  assert.equal(res.body.code, code, label);
  assert.match(res.body.request_id, /^req_/, label);
}

const pointers = (res: Res): string[] => (res.body.errors ?? []).map((e: { pointer: string }) => e.pointer);

test("the probe's requests: 422 for a body or a query, 404 for a path, on this store as on the other", async () => {
  const signIn = await t.request('POST', '/v1/sessions', { key: null, raw: '{"email":"a\\u0000@b.c","password":"x"}', headers: json });
  assertRefused(signIn, 422, 'validation-failed', 'sign-in without credentials');
  assert.deepEqual(pointers(signIn), ['/email']);
  assert.match(signIn.body.detail, /NUL/);

  assertRefused(await t.request('DELETE', '/v1/queues/%00'), 404, 'not-found', 'DELETE /v1/queues/%00');
  for (const [path, pointer] of [
    ['/v1/events?type=%00', '/query/type'],
    ['/v1/tickets?external_ref=%00', '/query/external_ref'],
    ['/v1/tickets?status=ready&external_ref=a&external_ref=b%00', '/query/external_ref/1'],
  ]) {
    const res = await t.request('GET', path!);
    assertRefused(res, 422, 'validation-failed', path!);
    assert.deepEqual(pointers(res), [pointer]);
  }
  for (const [path, raw, expected] of [
    ['/v1/tickets', '{"external_ref":"a\\u0000b"}', ['/external_ref']],
    ['/v1/announcements', '{"message":"hi\\u0000"}', ['/message']],
    ['/v1/tickets', '{"external_ref":"\\ud800"}', ['/external_ref']],
    ['/v1/tickets', '{"external_ref":"x\\udc00y"}', ['/external_ref']],
    // Member names too, pointed at their object; and every flaw at once, in order.
    [
      '/v1/tickets',
      '{"metadata":{"a/b":"\\ud83d","t\\u0000":"x","ok":"\\ud83d\\ude00"},"external_ref":"\\u0000"}',
      ['/metadata/a~1b', '/metadata', '/external_ref'],
    ],
  ] as const) {
    const res = await t.request('POST', path, { raw, headers: json });
    assertRefused(res, 422, 'validation-failed', raw);
    assert.deepEqual(pointers(res), expected, raw);
  }
  // A well-formed surrogate pair (an emoji) is ordinary text.
  const emoji = await t.request('POST', '/v1/tickets', { raw: '{"external_ref":"\\ud83d\\ude00"}', headers: json });
  assert.equal(emoji.status, 201, emoji.text);
  assert.equal(emoji.body.external_ref, '😀');
});

test('every route of the service refuses such a string in its path, query and body, before doing anything', async () => {
  const tk = await createTicket(t);
  const before = await snapshot(t, t.tenant.branchId);
  const routes = registeredRoutes(t.app.server.printRoutes({ commonPrefix: false }));
  assert.ok(routes.length >= 60, `found only ${routes.length} routes`);
  const send = async (method: string, path: string, raw?: string): Promise<Res> => {
    // A route that did not refuse would answer late or never (the event streams): a time limit
    // turns that into a failure instead of a hang.
    const res = await fetch(t.url + path, {
      method,
      headers: { authorization: `Bearer ${t.tenant.testKey}`, ...(raw === undefined ? {} : json) },
      body: raw,
      signal: AbortSignal.timeout(5_000),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text === '' ? undefined : JSON.parse(text) };
  };
  const check = (res: Res, status: number, code: string, label: string, pointer?: string): void => {
    assert.equal(res.status, status, `${label}: ${res.text.slice(0, 300)}`);
    if (res.body === undefined) return; // HEAD
    assertRefused(res, status, code, label);
    if (pointer !== undefined) assert.deepEqual(pointers(res), [pointer], label);
  };

  let checked = 0;
  for (const { method, path } of routes) {
    const holes = path.match(/:[A-Za-z0-9_]+|\*/g) ?? [];
    // A real ticket id where one is asked for, so that only the bad string can be the reason.
    const fill = (bad: number): string => {
      let i = 0;
      return path.replace(/:[A-Za-z0-9_]+|\*/g, (hole) => (i++ === bad ? '%00' : hole === ':id' ? tk.id : 'x'));
    };
    for (let i = 0; i < holes.length; i++) check(await send(method, fill(i)), 404, 'not-found', `${method} ${fill(i)}`);
    const plain = fill(-1);
    check(await send(method, `${plain}?probe=%00`), 422, 'validation-failed', `${method} ${plain}?probe=%00`, '/query/probe');
    if (method === 'POST' || method === 'PATCH' || method === 'DELETE') {
      check(await send(method, plain, '{"probe":"a\\u0000b"}'), 422, 'validation-failed', `${method} ${plain} NUL`, '/probe');
      check(await send(method, plain, '{"probe":["\\ud800"]}'), 422, 'validation-failed', `${method} ${plain} surrogate`, '/probe/0');
    }
    checked++;
  }
  assert.equal(checked, routes.length);
  assert.deepEqual(await snapshot(t, t.tenant.branchId), before);
});

const nested = (levels: number): string => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

test('a body nested 5,000 levels deep on a keyed write is 400 invalid-json, and the key stays free', async () => {
  const tk = await createTicket(t);
  for (const [method, path] of [
    ['POST', '/v1/tickets'],
    ['DELETE', '/v1/queues/A'],
    ['POST', `/v1/tickets/${tk.id}/cancel`],
  ] as const) {
    for (const raw of [nested(5_000), '['.repeat(5_000) + ']'.repeat(5_000)]) {
      const res = await t.request(method, path, { raw, headers: { ...json, 'idempotency-key': `deep-${method}-${path}` } });
      assertRefused(res, 400, 'invalid-json', `${method} ${path}`);
      assert.match(res.body.detail, /nested more than 32 levels/);
    }
  }
  // Nothing was stored under the key: the same key with a body of sane depth does the work.
  const cancelled = await t.request('POST', `/v1/tickets/${tk.id}/cancel`, {
    body: {},
    headers: { 'idempotency-key': `deep-POST-/v1/tickets/${tk.id}/cancel` },
  });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal(cancelled.body.status, 'cancelled');
});

test('32 levels is the bound: 32 pass on to the route, 33 do not', async () => {
  await t.request('POST', '/v1/queues', { body: { name: 'Deep' } });
  const over = await t.request('DELETE', '/v1/queues/Deep', { raw: nested(33), headers: { ...json, 'idempotency-key': 'depth-33' } });
  assertRefused(over, 400, 'invalid-json', '33 levels');
  // DELETE /v1/queues/{name} takes no body schema, so a deep body reaches the write (and its
  // idempotency fingerprint) whole.
  const at = await t.request('DELETE', '/v1/queues/Deep', { raw: nested(32), headers: { ...json, 'idempotency-key': 'depth-32' } });
  assert.equal(at.status, 200, at.text);
  const again = await t.request('DELETE', '/v1/queues/Deep', { raw: nested(32), headers: { ...json, 'idempotency-key': 'depth-32' } });
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.text, at.text);
});

test('the public sign-up, verification and reset routes refuse what no store can hold, at its field (decision 0081)', async () => {
  for (const [path, raw, pointer] of [
    ['/v1/signup', '{"email":"a\\u0000@b.c","password":"a long phrase of mine","shop_name":"S","timezone":"UTC"}', '/email'],
    ['/v1/signup', '{"email":"a@b.c","password":"a long phrase of mine","shop_name":"\\ud800","timezone":"UTC"}', '/shop_name'],
    ['/v1/signup/verify', '{"token":"abc\\u0000"}', '/token'],
    ['/v1/password_resets', '{"email":"x\\u0000@b.c"}', '/email'],
    ['/v1/password_resets/complete', '{"token":"t","password":"\\udc00 a long phrase"}', '/password'],
  ] as const) {
    const res = await t.request('POST', path, { key: null, raw, headers: json });
    assertRefused(res, 422, 'validation-failed', `${path} ${raw}`);
    assert.deepEqual(pointers(res), [pointer], raw);
  }
});
