// Connecting a branch to a Shopify store location (decision 0090) through the port's shared OAuth
// flow, against a local fake of Shopify's OAuth and Admin GraphQL endpoints (SHOPIFY_API_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeShopify } from '../helpers/fake-shopify.ts';
import { callback, ownerOf } from '../helpers/square.ts';
import { getShopifyConnection } from '../../src/connectors/shopify/store.ts';

let t: TestApp;
let shopify: FakeShopify;

before(async () => {
  shopify = await new FakeShopify().start();
  t = await startTestApp({ env: { ...shopify.env(), WEBHOOK_SECRETS_KEY: 'd'.repeat(64) } });
});
after(async () => {
  await t.close();
  await shopify.close();
});

test('an owner names the shop, approves on its page, comes back connected, and chooses a location', async () => {
  const owner = await ownerOf(t, await t.newTenant());
  assert.equal((await owner.as('GET', '/v1/connectors/shopify')).body.status, 'not_connected');
  for (const shop of ['corner-cafe.example.com', 'https://evil.com/x.myshopify.com', 'a b.myshopify.com']) {
    const bad = await owner.as('POST', '/v1/connectors/shopify/authorize', { body: { shop } });
    assert.equal(bad.status, 422, `${shop}: ${bad.text}`);
    assert.equal(bad.body.errors[0].pointer, '/shop');
  }
  const started = await owner.as('POST', '/v1/connectors/shopify/authorize', { body: { shop: 'Corner-Cafe.myshopify.com' } });
  assert.equal(started.status, 200, started.text);
  const { redirect, params } = shopify.authorize(started.body.authorize_url);
  assert.equal(params.get('client_id'), FakeShopify.API_KEY);
  assert.equal(new URL(params.get('redirect_uri')!).pathname, '/connectors/shopify/oauth/callback');
  assert.ok((params.get('state') ?? '').length >= 32);
  const back = await callback(t, redirect, owner.session.cookie);
  assert.equal(back.status, 303);
  assert.equal(back.location, '/staff/#/settings/shopify?shopify=connected');

  const connected = (await owner.as('GET', '/v1/connectors/shopify')).body;
  assert.deepEqual(
    [connected.status, connected.shop, connected.shop_name, connected.livemode],
    ['choose_location', 'corner-cafe.myshopify.com', 'Corner Café', false],
  );
  // The token is sealed at rest.
  const row = await getShopifyConnection(t.app.services.db, owner.tenant.branchId);
  assert.ok(row?.accessToken?.startsWith('enc:v1:'));
  assert.ok(!row!.accessToken!.includes('shpat_'));

  const locations = await owner.as('GET', '/v1/connectors/shopify/locations');
  assert.equal(locations.status, 200, locations.text);
  assert.deepEqual(
    locations.body.data.map((l: any) => [l.name, l.active]),
    [
      ['Main Street', true],
      ['Old Town', false],
    ],
  );
  const inactive = await owner.as('PATCH', '/v1/connectors/shopify', { body: { location_id: 'gid://shopify/Location/1002' } });
  assert.equal(inactive.status, 422, inactive.text);
  assert.equal(inactive.body.errors[0].pointer, '/location_id');
  const done = await owner.as('PATCH', '/v1/connectors/shopify', { body: { location_id: FakeShopify.LOCATION, queue: 'A' } });
  assert.equal(done.status, 200, done.text);
  assert.deepEqual(
    [done.body.status, done.body.location, done.body.queue, done.body.mark_prepared],
    ['connected', { id: FakeShopify.LOCATION, name: 'Main Street' }, 'A', true],
  );
  const gone = await owner.as('DELETE', '/v1/connectors/shopify');
  assert.equal(gone.status, 200, gone.text);
  assert.equal(gone.body.status, 'not_connected');
  assert.equal(await getShopifyConnection(t.app.services.db, owner.tenant.branchId), undefined);
});

test('a shop that is not a development store makes live tickets', async () => {
  shopify.development = false;
  try {
    const owner = await ownerOf(t, await t.newTenant());
    const started = await owner.as('POST', '/v1/connectors/shopify/authorize', { body: { shop: 'live-shop.myshopify.com' } });
    const back = await callback(t, shopify.authorize(started.body.authorize_url, 'live-shop.myshopify.com').redirect, owner.session.cookie);
    assert.equal(back.location, '/staff/#/settings/shopify?shopify=connected');
    assert.equal((await owner.as('GET', '/v1/connectors/shopify')).body.livemode, true);
  } finally {
    shopify.development = true;
  }
});

test('a connected branch that connects another store keeps the first until the new code is exchanged', async () => {
  const owner = await ownerOf(t, await t.newTenant());
  const first = await owner.as('POST', '/v1/connectors/shopify/authorize', { body: { shop: FakeShopify.SHOP } });
  await callback(t, shopify.authorize(first.body.authorize_url).redirect, owner.session.cookie);
  const second = await owner.as('POST', '/v1/connectors/shopify/authorize', { body: { shop: 'second-store.myshopify.com' } });
  assert.equal((await owner.as('GET', '/v1/connectors/shopify')).body.shop, FakeShopify.SHOP, 'still the first store');
  const back = await callback(t, shopify.authorize(second.body.authorize_url, 'second-store.myshopify.com').redirect, owner.session.cookie);
  assert.equal(back.location, '/staff/#/settings/shopify?shopify=connected');
  const now = (await owner.as('GET', '/v1/connectors/shopify')).body;
  assert.deepEqual([now.shop, now.status], ['second-store.myshopify.com', 'choose_location']);
});

test('a callback from another browser, or with a spent state, connects nothing', async () => {
  const owner = await ownerOf(t, await t.newTenant());
  const started = await owner.as('POST', '/v1/connectors/shopify/authorize', { body: { shop: FakeShopify.SHOP } });
  const { redirect } = shopify.authorize(started.body.authorize_url);
  const other = await ownerOf(t, await t.newTenant());
  assert.equal((await callback(t, redirect, other.session.cookie)).location, '/staff/#/settings/shopify?shopify_error=state_mismatch');
  assert.equal((await callback(t, redirect, owner.session.cookie)).location, '/staff/#/settings/shopify?shopify_error=state_mismatch');
  assert.equal((await owner.as('GET', '/v1/connectors/shopify')).body.status, 'not_connected');
});

test('API keys cannot manage the connection', async () => {
  const tenant = await t.newTenant();
  const res = await t.request('GET', '/v1/connectors/shopify', { key: tenant.liveKey });
  assert.equal(res.status, 403, res.text);
  assert.match(res.body.detail, /API keys cannot manage the Shopify connection/);
  const authorize = await t.request('POST', '/v1/connectors/shopify/authorize', { key: tenant.liveKey, body: { shop: FakeShopify.SHOP } });
  assert.equal(authorize.status, 403, authorize.text);
});

test('without a Shopify app the connection says not_configured, nothing starts, and webhooks are refused', async () => {
  const plain = await startTestApp();
  try {
    const owner = await ownerOf(plain, plain.tenant);
    assert.equal((await owner.as('GET', '/v1/connectors/shopify')).body.status, 'not_configured');
    const started = await owner.as('POST', '/v1/connectors/shopify/authorize', { body: { shop: FakeShopify.SHOP } });
    assert.equal(started.status, 409, started.text);
    const hook = await plain.request('POST', '/connectors/shopify/webhook', {
      key: null,
      raw: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(hook.status, 403, hook.text);
  } finally {
    await plain.close();
  }
});
