// What scanners and integrators' tools check on an API's answers (OWASP REST Security Cheat
// Sheet): every /v1 answer says X-Content-Type-Options: nosniff, and every JSON one
// Cache-Control: no-store, problems and refusals included, so no browser, proxy or CDN keeps a
// branch's tickets or keys. What says how it may be cached keeps its word: a ticket's QR code, the
// OpenAPI document, the pages and their files.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('every JSON answer of /v1 says nosniff and no-store, errors and replays included', async () => {
  const created = await t.request('POST', '/v1/tickets', { body: {}, headers: { 'idempotency-key': 'headers-1' } });
  assert.equal(created.status, 201);
  const answers = {
    'a create': created,
    'its replay': await t.request('POST', '/v1/tickets', { body: {}, headers: { 'idempotency-key': 'headers-1' } }),
    'a read': await t.request('GET', '/v1/branch'),
    'a list, compressed': await t.request('GET', '/v1/tickets?limit=100', { headers: { 'accept-encoding': 'gzip' } }),
    'a 404 problem': await t.request('GET', '/v1/tickets/tk_01m81j19a75aagw39z4av2ch96'),
    'a 401 without a key': await t.request('GET', '/v1/branch', { key: null }),
    'an unknown path': await t.request('GET', '/v1/nowhere'),
    'a validation problem': await t.request('POST', '/v1/tickets', { body: { nope: 1 } }),
  };
  assert.equal(answers['its replay'].headers.get('idempotent-replayed'), 'true');
  for (const [what, res] of Object.entries(answers)) {
    assert.match(res.headers.get('content-type') ?? '', /^application\/(problem\+)?json/, what);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', what);
    assert.equal(res.headers.get('cache-control'), 'no-store', what);
  }
});

test('what says how it may be cached keeps its word', async () => {
  const ticket = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const qr = await t.request('GET', `/v1/tickets/${ticket.id}/qr.png`);
  assert.equal(qr.status, 200);
  assert.equal(qr.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(qr.headers.get('cache-control'), 'private, max-age=86400, immutable');

  const document = await t.request('GET', '/v1/openapi.json', { key: null });
  assert.equal(document.status, 200);
  assert.equal(document.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(document.headers.get('cache-control'), null, 'the document is the same for everyone: left cacheable');

  // Outside /v1 nothing changes: the customer page's files and the reference's script cache as before.
  const asset = await t.request('GET', '/assets/icon.svg', { key: null });
  assert.equal(asset.status, 200);
  assert.notEqual(asset.headers.get('cache-control'), 'no-store');
});
