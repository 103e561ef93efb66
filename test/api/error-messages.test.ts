// Error messages that tell a person what to fix (issue #25): a phone number's rule in words, not
// a regular expression; where a body stops being JSON; the queue meant when only the case differs;
// and every 401 names the scheme that would succeed (WWW-Authenticate: Bearer).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_WRITES_BURST: '1000' } });
});
after(() => t?.close());

const json = { 'content-type': 'application/json' };

function fieldError(res: Res, pointer: string): string {
  assert.equal(res.status, 422, res.text);
  const e = res.body.errors.find((x: { pointer: string }) => x.pointer === pointer);
  assert.ok(e, `no error at ${pointer}: ${res.text}`);
  return e.detail;
}

test('a bad phone number or queue name is answered in words, not with the regular expression', async () => {
  const phone = await t.request('POST', '/v1/tickets', { body: { customer_phone: '06 12 34 56 78' } });
  const said = fieldError(phone, '/customer_phone');
  assert.match(said, /phone number in international \(E\.164\) form/);
  assert.match(said, /\+33612345678/);
  assert.doesNotMatch(phone.text, /\^\\\\\+|\[0-9\]|\{6,14\}/, 'no regular expression anywhere in the answer');

  const queue = await t.request('POST', '/v1/queues', { body: { name: 'café bar' } });
  assert.match(fieldError(queue, '/name'), /1 to 16 letters, digits or _/);
  assert.doesNotMatch(queue.text, /\[A-Za-z0-9_\]/);
});

test('a body that is not JSON: the answer says where it stops being JSON', async () => {
  for (const [raw, where] of [
    ['{"queue": A}', /Unexpected token 'A' at line 1, column 11 \(character 11\)/],
    ['{\n  "queue": "A"\n  "external_ref": "1"\n}', /after property value at line 3, column 3 \(character 20\)/],
    ['{"queue": "A"', /at line 1, column 14 \(character 14\)/],
    ['{"queue": "A",}', /Expected double-quoted property name at line 1, column 15/],
  ] as const) {
    const res = await t.request('POST', '/v1/tickets', { raw, headers: json });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'invalid-json');
    assert.match(res.body.detail, /^The request body is not valid JSON: /);
    assert.match(res.body.detail, where, raw);
  }
});

test('a queue named in the wrong case: the answer names the queue that exists', async () => {
  const tenant = await t.newTenant();
  const key = tenant.testKey;
  assert.equal((await t.request('POST', '/v1/queues', { key, body: { name: 'DRINKS' } })).status, 201);
  const create = await t.request('POST', '/v1/tickets', { key, body: { queue: 'a' } });
  assert.match(
    fieldError(create, '/queue'),
    /^Queue "a" does not exist in this branch\. Did you mean "A"\? Queue names are case-sensitive\./,
  );
  const drinks = await t.request('POST', '/v1/tickets', { key, body: { queue: 'Drinks' } });
  assert.match(fieldError(drinks, '/queue'), /Did you mean "DRINKS"\?/);
  const display = await t.request('POST', '/v1/displays', { key, body: { name: 'Bar', queues: ['drinks'] } });
  assert.match(fieldError(display, '/queues/0'), /Did you mean "DRINKS"\?/);
  // Branch settings change with the live key only (decision 0052).
  const branch = await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { default_queue: 'drinks' } });
  assert.match(fieldError(branch, '/default_queue'), /Did you mean "DRINKS"\?/);
  // No near name: no guess.
  const none = await t.request('POST', '/v1/tickets', { key, body: { queue: 'ZZ' } });
  assert.doesNotMatch(fieldError(none, '/queue'), /Did you mean/);
});

test('every 401 carries WWW-Authenticate: Bearer; a refused key says invalid_token', async () => {
  const bearer = 'Bearer realm="readybell"';
  for (const [headers, expected] of [
    [{}, bearer],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, bearer],
    [{ authorization: `Bearer rk_test_${'0'.repeat(32)}` }, `${bearer}, error="invalid_token"`],
    [{ authorization: 'Bearer rk_live_short' }, `${bearer}, error="invalid_token"`],
  ] as const) {
    const res = await fetch(`${t.url}/v1/branch`, { headers });
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.equal(res.headers.get('www-authenticate'), expected, JSON.stringify(headers));
  }
  const signIn = await t.request('POST', '/v1/sessions', { key: null, body: { email: t.tenant.ownerEmail, password: 'wrong' } });
  assert.equal(signIn.status, 401, signIn.text);
  assert.equal(signIn.headers.get('www-authenticate'), bearer);
});
