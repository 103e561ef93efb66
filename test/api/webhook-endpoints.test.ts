// The webhook endpoint resource: create, read, change, delete, reveal, rotate; validation with
// clear problems; isolation between branches and between test and live mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { createEndpoint, fakeLookup } from '../helpers/webhooks.ts';
import { asSession, signInOk } from '../helpers/session.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, webhookLookup: fakeLookup({ 'pos.example.com': '93.184.216.34' }) });
});
after(() => t.close());

test('create answers 201 with the secret once; reads never show it; list, change and delete', async () => {
  const created = await t.request('POST', '/v1/webhook_endpoints', { body: { url: 'http://127.0.0.1:9/hook', description: 'POS' } });
  assert.equal(created.status, 201, created.text);
  const e = created.body;
  assert.match(e.id, /^we_[0-9a-z]{26}$/);
  // 44 letters and digits: canonical base64 too, so one secret serves both signature schemes (decision 0005).
  assert.match(e.secret, /^whsec_[A-Za-z0-9]{44}$/);
  assert.deepEqual(
    {
      url: e.url,
      enabled_events: e.enabled_events,
      description: e.description,
      disabled: e.disabled,
      livemode: e.livemode,
      branch: e.branch,
    },
    {
      url: 'http://127.0.0.1:9/hook',
      enabled_events: ['*'],
      description: 'POS',
      disabled: false,
      livemode: false,
      branch: t.tenant.branchId,
    },
  );

  const got = await t.request('GET', `/v1/webhook_endpoints/${e.id}`);
  assert.equal(got.status, 200);
  assert.equal(got.body.secret, undefined);
  const list = await t.request('GET', '/v1/webhook_endpoints');
  assert.ok(list.body.data.some((x: { id: string; secret?: string }) => x.id === e.id && x.secret === undefined));

  const revealed = await t.request('GET', `/v1/webhook_endpoints/${e.id}/secret`);
  assert.equal(revealed.status, 200);
  assert.equal(revealed.body.secret, e.secret);
  assert.equal(revealed.headers.get('cache-control'), 'no-store');

  const patched = await t.request('PATCH', `/v1/webhook_endpoints/${e.id}`, {
    body: { url: 'https://pos.example.com/rb', enabled_events: ['ticket.ready', 'ticket.ready', 'ticket.rung'], description: null },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(
    [patched.body.url, patched.body.enabled_events, patched.body.description],
    ['https://pos.example.com/rb', ['ticket.ready', 'ticket.rung'], null],
  );

  const disabled = await t.request('PATCH', `/v1/webhook_endpoints/${e.id}`, { body: { disabled: true } });
  assert.equal(disabled.body.disabled, true);
  assert.equal(disabled.body.disabled_reason, 'Disabled through the API.');
  assert.equal((await t.request('POST', `/v1/webhook_endpoints/${e.id}/test`)).status, 409);

  const deleted = await t.request('DELETE', `/v1/webhook_endpoints/${e.id}`);
  assert.deepEqual(deleted.body, { object: 'webhook_endpoint', id: e.id, deleted: true });
  assert.equal((await t.request('GET', `/v1/webhook_endpoints/${e.id}`)).status, 404);
  assert.equal((await t.request('DELETE', `/v1/webhook_endpoints/${e.id}`)).status, 404);
});

test('bad input gets a 422 problem naming the field', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{}, '/url'],
    [{ url: 'not a url' }, '/url'],
    [{ url: 'ftp://pos.example.com/' }, '/url'],
    [{ url: 'https://user:pw@pos.example.com/' }, '/url'],
    [{ url: 'https://pos.example.com/#x' }, '/url'],
    [{ url: `https://pos.example.com/${'a'.repeat(2100)}` }, '/url'],
    [{ url: 'https://pos.example.com/', enabled_events: [] }, '/enabled_events'],
    [{ url: 'https://pos.example.com/', enabled_events: ['ticket.created', 'ticket.eaten'] }, '/enabled_events/1'],
    [{ url: 'https://pos.example.com/', description: 'x'.repeat(501) }, '/description'],
    [{ url: 'https://pos.example.com/', secret: 'whsec_mine' }, '/secret'],
  ];
  for (const [body, pointer] of cases) {
    const res = await t.request('POST', '/v1/webhook_endpoints', { body });
    assert.equal(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
    assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
    assert.ok(
      res.body.errors.some((x: { pointer: string }) => x.pointer === pointer),
      `${pointer} in ${res.text}`,
    );
  }
  const e = await createEndpoint(t, { url: 'https://pos.example.com/' });
  const rotate = await t.request('POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`, { body: { expires_in: 8 * 86400 } });
  assert.equal(rotate.status, 422);
  const query = await t.request('GET', `/v1/webhook_endpoints/${e.id}/deliveries?starting_after=whd_nope`);
  assert.equal(query.status, 422);
  assert.equal((await t.request('GET', '/v1/webhook_endpoints/we_not_an_id')).status, 404);
  assert.equal((await t.request('POST', '/v1/webhook_deliveries/whd_nope/retry')).status, 404);
});

test('live endpoints need https', async () => {
  const res = await t.request('POST', '/v1/webhook_endpoints', { key: t.tenant.liveKey, body: { url: 'http://pos.example.com/' } });
  assert.equal(res.status, 422);
  assert.match(res.body.detail, /https/);
  const ok = await t.request('POST', '/v1/webhook_endpoints', { key: t.tenant.liveKey, body: { url: 'https://pos.example.com/' } });
  assert.equal(ok.status, 201);
  assert.equal(ok.body.livemode, true);
});

test("another branch's or mode's endpoint is a 404 on every route, and lists never show it", async () => {
  const owner = await t.newTenant();
  const stranger: Tenant = await t.newTenant();
  const e = await createEndpoint(t, { url: 'https://pos.example.com/' }, owner.testKey);
  const routes: Array<[string, string, unknown?]> = [
    ['GET', `/v1/webhook_endpoints/${e.id}`],
    ['PATCH', `/v1/webhook_endpoints/${e.id}`, { description: 'x' }],
    ['DELETE', `/v1/webhook_endpoints/${e.id}`],
    ['POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`, {}],
    ['GET', `/v1/webhook_endpoints/${e.id}/secret`],
    ['POST', `/v1/webhook_endpoints/${e.id}/test`],
    ['GET', `/v1/webhook_endpoints/${e.id}/deliveries`],
  ];
  for (const key of [stranger.testKey, stranger.liveKey, owner.liveKey]) {
    for (const [method, path, body] of routes) {
      const res = await t.request(method, path, { key, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    const list = await t.request('GET', '/v1/webhook_endpoints', { key });
    assert.ok(!list.body.data.some((x: { id: string }) => x.id === e.id));
  }
  const ping = await t.request('POST', `/v1/webhook_endpoints/${e.id}/test`, { key: owner.testKey });
  for (const key of [stranger.testKey, owner.liveKey]) {
    assert.equal((await t.request('GET', `/v1/webhook_deliveries/${ping.body.id}`, { key })).status, 404);
  }
  assert.equal((await t.request('GET', `/v1/webhook_endpoints/${e.id}`, { key: owner.testKey })).status, 200);
});

test('at most 16 endpoints per branch and mode', async () => {
  const tenant = await t.newTenant();
  for (let i = 0; i < 16; i++) await createEndpoint(t, { url: `https://pos.example.com/${i}` }, tenant.testKey);
  const over = await t.request('POST', '/v1/webhook_endpoints', { key: tenant.testKey, body: { url: 'https://pos.example.com/17' } });
  assert.equal(over.status, 409);
  assert.equal(
    (await t.request('POST', '/v1/webhook_endpoints', { key: tenant.liveKey, body: { url: 'https://pos.example.com/live' } })).status,
    201,
  );
});

test('an idempotent create replays the same endpoint instead of making a second; the secret is not kept for replays', async () => {
  const tenant = await t.newTenant();
  const opts = { key: tenant.testKey, body: { url: 'https://pos.example.com/once' }, headers: { 'idempotency-key': 'create-endpoint-1' } };
  const first = await t.request('POST', '/v1/webhook_endpoints', opts);
  const again = await t.request('POST', '/v1/webhook_endpoints', opts);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const { secret, ...rest } = first.body;
  assert.deepEqual(again.body, rest);
  const stored = await t.app.services.db.query<{ response_body: string }>('SELECT response_body FROM idempotency_keys WHERE key = $1', [
    'create-endpoint-1',
  ]);
  assert.ok(!stored[0]!.response_body.includes(secret), 'the secret is not at rest in the idempotency store');
  const revealed = await t.request('GET', `/v1/webhook_endpoints/${first.body.id}/secret`, { key: tenant.testKey });
  assert.equal(revealed.body.secret, secret);
  assert.equal((await t.request('GET', '/v1/webhook_endpoints', { key: tenant.testKey })).body.data.length, 1);
});

test('rotation with expires_in 0 ends the old secret at once', async () => {
  const e = await createEndpoint(t, { url: 'https://pos.example.com/' });
  const rotated = await t.request('POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`, { body: { expires_in: 0 } });
  assert.equal(rotated.status, 200);
  assert.equal(rotated.body.previous_secret_expires_at, null);
  assert.equal((await t.request('GET', `/v1/webhook_endpoints/${e.id}/secret`)).body.secret, rotated.body.secret);
  const defaulted = await t.request('POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`);
  assert.equal(Date.parse(defaulted.body.previous_secret_expires_at) - Date.parse(defaulted.body.updated_at), 24 * 3600_000);
});

test('in the staff page only the owner manages webhooks, and a free account has none', async () => {
  const owner = asSession(t, await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword));
  const created = await owner('POST', '/v1/webhook_endpoints', { body: { url: 'https://pos.example.com/staff' } });
  assert.equal(created.status, 201, created.text);
  assert.equal((await owner('GET', `/v1/webhook_endpoints/${created.body.id}/secret`)).body.secret, created.body.secret);
  const invited = await owner('POST', '/v1/users', { body: { email: `mgr-${Date.now()}@example.test`, role: 'manager' } });
  assert.equal(invited.status, 201, invited.text);
  const manager = asSession(t, await signInOk(t, invited.body.email, invited.body.password));
  for (const [method, path] of [
    ['GET', '/v1/webhook_endpoints'],
    ['GET', `/v1/webhook_endpoints/${created.body.id}/secret`],
    ['POST', '/v1/webhook_endpoints'],
  ] as const) {
    const res = await manager(method, path, { body: method === 'POST' ? { url: 'https://pos.example.com/m' } : undefined });
    assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
    assert.equal(res.body.code, 'forbidden');
  }
  const free = await t.newTenant({ plan: 'free' });
  const freeOwner = asSession(t, await signInOk(t, free.ownerEmail, free.ownerPassword));
  const refused = await freeOwner('POST', '/v1/webhook_endpoints', { body: { url: 'https://pos.example.com/free' } });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'plan-required');
});
