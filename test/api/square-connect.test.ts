// The Square connector's owner side (docs/decisions/0073): connecting a branch with Square's OAuth
// code flow against a local fake of Square (test/helpers/fake-square.ts), the state bound to the
// owner's session, choosing a location and queue, who may do it, and disconnecting (revoked at
// Square, tokens erased, the merchant's later notifications refused).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeSquare } from '../helpers/fake-square.ts';
import { callback, connectSquare, deliver, ownerOf } from '../helpers/square.ts';
import { getSquareConnection } from '../../src/store/square-connections.ts';

const SECRETS_KEY = 'a'.repeat(64);
let t: TestApp;
let square: FakeSquare;

before(async () => {
  square = await new FakeSquare().start();
  t = await startTestApp({ env: { ...square.env(), WEBHOOK_SECRETS_KEY: SECRETS_KEY } });
});
after(async () => {
  await t.close();
  await square.close();
});

test('an owner connects a branch: authorize URL, Square’s page, the callback, then a location', async () => {
  const owner = await ownerOf(t, await t.newTenant());
  const before = await owner.as('GET', '/v1/connectors/square');
  assert.equal(before.status, 200, before.text);
  assert.equal(before.body.status, 'not_connected');
  assert.equal(before.body.environment, 'sandbox');

  const started = await owner.as('POST', '/v1/connectors/square/authorize');
  assert.equal(started.status, 200, started.text);
  const { redirect, params } = square.authorize(started.body.authorize_url);
  assert.equal(params.get('client_id'), FakeSquare.APP_ID);
  assert.equal(params.get('scope'), 'MERCHANT_PROFILE_READ ORDERS_READ ORDERS_WRITE');
  assert.equal(params.get('session'), 'false');
  assert.equal(params.get('redirect_uri'), 'http://localhost:3000/connectors/square/oauth/callback');
  assert.ok((params.get('state') ?? '').length >= 40);

  const back = await callback(t, redirect, owner.session.cookie);
  assert.equal(back.status, 303);
  assert.equal(back.location, '/staff/#/settings/square?square=connected');
  const chosen = await owner.as('GET', '/v1/connectors/square');
  assert.equal(chosen.body.status, 'choose_location');
  assert.equal(chosen.body.merchant_id, FakeSquare.MERCHANT);
  assert.equal(chosen.body.merchant_name, 'Corner Café');
  assert.ok(Date.parse(chosen.body.token_expires_at) > Date.now() + 29 * 24 * 3600_000);

  // Tokens are sealed at rest: neither appears in the row.
  const row = await getSquareConnection(t.app.services.db, owner.tenant.branchId);
  assert.ok(row?.accessToken?.startsWith('enc:v1:'));
  assert.ok(row?.refreshToken?.startsWith('enc:v1:'));
  assert.ok(![...square.accessTokens].some((tok) => row!.accessToken!.includes(tok)));

  const locations = await owner.as('GET', '/v1/connectors/square/locations');
  assert.equal(locations.status, 200, locations.text);
  assert.deepEqual(
    locations.body.data.map((l: any) => [l.id, l.status]),
    [
      ['LMAIN0001', 'ACTIVE'],
      ['LOLD00002', 'INACTIVE'],
    ],
  );
  assert.equal(locations.body.data[0].address, '1 Main Street, Springfield');

  const inactive = await owner.as('PATCH', '/v1/connectors/square', { body: { location_id: 'LOLD00002' } });
  assert.equal(inactive.status, 422, inactive.text);
  assert.equal(inactive.body.errors[0].pointer, '/location_id');
  const noQueue = await owner.as('PATCH', '/v1/connectors/square', { body: { location_id: 'LMAIN0001', queue: 'ZZ' } });
  assert.equal(noQueue.status, 422, noQueue.text);
  assert.equal(noQueue.body.errors[0].pointer, '/queue');

  const done = await owner.as('PATCH', '/v1/connectors/square', { body: { location_id: 'LMAIN0001', queue: 'A', mark_prepared: true } });
  assert.equal(done.status, 200, done.text);
  assert.deepEqual(
    { status: done.body.status, location: done.body.location, queue: done.body.queue, mark_prepared: done.body.mark_prepared },
    { status: 'connected', location: { id: 'LMAIN0001', name: 'Main Street' }, queue: 'A', mark_prepared: true },
  );
});

test('a callback whose state is unknown, reused, or from another browser connects nothing', async () => {
  const owner = await ownerOf(t, await t.newTenant());
  const started = await owner.as('POST', '/v1/connectors/square/authorize');
  const { redirect } = square.authorize(started.body.authorize_url);

  const forged = new URL(redirect);
  forged.searchParams.set('state', 'not-the-state');
  assert.equal((await callback(t, forged, owner.session.cookie)).location, '/staff/#/settings/square?square_error=state_mismatch');

  // Another owner's browser (a planted code): the state is bound to the session that asked.
  const other = await ownerOf(t, await t.newTenant());
  assert.equal((await callback(t, redirect, other.session.cookie)).location, '/staff/#/settings/square?square_error=state_mismatch');
  // The state was spent by that attempt: the right browser cannot use it afterwards either.
  assert.equal((await callback(t, redirect, owner.session.cookie)).location, '/staff/#/settings/square?square_error=state_mismatch');
  assert.equal((await owner.as('GET', '/v1/connectors/square')).body.status, 'not_connected');

  // No cookie at all.
  const again = square.authorize((await owner.as('POST', '/v1/connectors/square/authorize')).body.authorize_url);
  assert.equal((await callback(t, again.redirect, null)).location, '/staff/#/settings/square?square_error=state_mismatch');
  assert.equal((await owner.as('GET', '/v1/connectors/square')).body.status, 'not_connected');
});

test('an owner who declines on Square’s page comes back with access_denied', async () => {
  const owner = await ownerOf(t, await t.newTenant());
  const started = await owner.as('POST', '/v1/connectors/square/authorize');
  const { redirect } = square.authorize(started.body.authorize_url, true);
  assert.equal((await callback(t, redirect, owner.session.cookie)).location, '/staff/#/settings/square?square_error=access_denied');
  assert.equal((await owner.as('GET', '/v1/connectors/square')).body.status, 'not_connected');
});

test('API keys and staff below owner cannot manage the connection', async () => {
  const tenant = await t.newTenant();
  for (const path of ['/v1/connectors/square', '/v1/connectors/square/locations']) {
    const res = await t.request('GET', path, { key: tenant.liveKey });
    assert.equal(res.status, 403, res.text);
    assert.match(res.body.detail, /API keys cannot manage the Square connection/);
  }
  const authorize = await t.request('POST', '/v1/connectors/square/authorize', { key: tenant.liveKey });
  assert.equal(authorize.status, 403, authorize.text);
  const owner = await ownerOf(t, tenant);
  const invited = await owner.as('POST', '/v1/users', { body: { email: `mgr-${tenant.branchId}@example.test`, role: 'manager' } });
  assert.equal(invited.status, 201, invited.text);
  const manager = await ownerOf(t, { ...tenant, ownerEmail: invited.body.email, ownerPassword: invited.body.password });
  const res = await manager.as('POST', '/v1/connectors/square/authorize');
  assert.equal(res.status, 403, res.text);
  assert.match(res.body.detail, /owner role/);
});

test('disconnect revokes the token at Square, erases it here, and the merchant’s notifications are refused', async () => {
  // A merchant of its own: no other test's branch is connected to it.
  square.merchantId = 'MLDISCONNECT1';
  try {
    const owner = await ownerOf(t, await t.newTenant());
    await connectSquare(t, square, owner);
    const order = square.addOrder();
    assert.equal((await deliver(t, square.notification('order.created', order))).status, 200, 'accepted while connected');
    const token = [...square.accessTokens].at(-1)!;
    const res = await owner.as('DELETE', '/v1/connectors/square');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'not_connected');
    assert.equal(res.body.merchant_id, null);
    assert.deepEqual(square.revoked.at(-1), token, 'the token revoked at Square');
    assert.equal(square.callsTo('POST', '/oauth2/revoke').at(-1)!.authorization, `Client ${FakeSquare.APP_SECRET}`);
    assert.equal(await getSquareConnection(t.app.services.db, owner.tenant.branchId), undefined, 'tokens erased');
    const refused = await deliver(t, square.notification('order.updated', order));
    assert.equal(refused.status, 404, refused.text);
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.match(refused.body.detail, /No branch is connected to the Square merchant MLDISCONNECT1/);
    // The job the first notification set off finds the connection gone and makes no ticket.
    await t.app.runner.runOnce();
    const tickets = await t.request('GET', `/v1/tickets?external_ref=${order.id}`, { key: owner.tenant.testKey });
    assert.deepEqual(tickets.body.data, []);
  } finally {
    square.merchantId = FakeSquare.MERCHANT;
  }
});

test('without a Square application the screen says not_configured and nothing starts', async () => {
  const plain = await startTestApp();
  try {
    const owner = await ownerOf(plain, plain.tenant);
    const res = await owner.as('GET', '/v1/connectors/square');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'not_configured');
    assert.equal(res.body.environment, null);
    const started = await owner.as('POST', '/v1/connectors/square/authorize');
    assert.equal(started.status, 409, started.text);
    const hook = await plain.request('POST', '/connectors/square/webhook', {
      key: null,
      raw: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(hook.status, 403, hook.text);
  } finally {
    await plain.close();
  }
});
