// Shopify local pickup orders becoming tickets (decision 0090), against a local fake of Shopify's
// OAuth and Admin GraphQL endpoints with the official client pointed at it (SHOPIFY_API_URL);
// webhooks signed here with node:crypto as Shopify documents them, the jobs they set off run by
// hand. One order's life, webhook to collected; retries and races make one ticket; a cancellation;
// refused signatures; Shopify's throttle; readybell's ready marking the pickup prepared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeShopify, type FakeShopifyOrder } from '../helpers/fake-shopify.ts';
import { callback, ownerOf, type Owner } from '../helpers/square.ts';

const clock = new FakeClock();
let t: TestApp;
let shopify: FakeShopify;

before(async () => {
  shopify = await new FakeShopify().start();
  t = await startTestApp({ clock, env: { ...shopify.env(), WEBHOOK_SECRETS_KEY: 'c'.repeat(64) } });
});
after(async () => {
  await t.close();
  await shopify.close();
});

async function connectShopify(owner: Owner, patch: Record<string, unknown> = {}): Promise<any> {
  const started = await owner.as('POST', '/v1/connectors/shopify/authorize', { body: { shop: FakeShopify.SHOP } });
  assert.equal(started.status, 200, started.text);
  const { redirect, params } = shopify.authorize(started.body.authorize_url);
  assert.equal(
    params.get('scope'),
    'read_orders,write_orders,read_merchant_managed_fulfillment_orders,write_merchant_managed_fulfillment_orders,read_locations',
  );
  const back = await callback(t, redirect, owner.session.cookie);
  assert.equal(back.location, '/staff/#/settings/shopify?shopify=connected');
  const chosen = await owner.as('PATCH', '/v1/connectors/shopify', { body: { location_id: FakeShopify.LOCATION, ...patch } });
  assert.equal(chosen.status, 200, chosen.text);
  assert.equal(chosen.body.status, 'connected');
  return chosen.body;
}

/** A branch of its own connected to the fake shop's location (the previous one is disconnected first). */
let current: { owner: Owner; tenant: Tenant } | null = null;
async function connectedBranch(patch: Record<string, unknown> = {}): Promise<{ owner: Owner; tenant: Tenant }> {
  if (current !== null) await current.owner.as('DELETE', '/v1/connectors/shopify');
  const tenant = await t.newTenant({ plan: 'pro' });
  const owner = await ownerOf(t, tenant);
  await connectShopify(owner, patch);
  current = { owner, tenant };
  return current;
}

const deliver = (w: { body: string; headers: Record<string, string> }) =>
  t.request('POST', '/connectors/shopify/webhook', { key: null, raw: w.body, headers: w.headers });

async function webhookAndRun(topic: string, order: FakeShopifyOrder) {
  const res = await deliver(shopify.webhook(topic, order));
  assert.equal(res.status, 200, res.text);
  await t.app.runner.runOnce();
}

const ticketsOf = async (tenant: Tenant, orderId: string): Promise<any[]> =>
  (await t.request('GET', `/v1/tickets?external_ref=${encodeURIComponent(orderId)}`, { key: tenant.testKey })).body.data;

const eventTypes = async (tenant: Tenant): Promise<string[]> =>
  ((await t.request('GET', '/v1/events?limit=100', { key: tenant.testKey })).body.data as any[]).map((e) => e.type).reverse();

test('one order’s life: orders/create → ticket and tag → prepared for pickup rings → fulfillments/create collects', async () => {
  const { tenant } = await connectedBranch({ queue: 'A' });
  const order = shopify.addOrder();
  await webhookAndRun('orders/create', order);

  const [ticket, ...others] = await ticketsOf(tenant, order.id);
  assert.equal(others.length, 0);
  assert.equal(ticket.status, 'created');
  assert.equal(ticket.external_ref, order.id);
  assert.deepEqual(ticket.metadata, { source: 'shopify' });
  assert.equal(ticket.livemode, false, "a development store's order makes a test-mode ticket");
  assert.deepEqual(order.tags, [`readybell-${ticket.display_number}`], 'the number written to the order as a tag');

  // A retry of the same delivery, and the order's other webhooks, change nothing.
  await webhookAndRun('orders/create', order);
  assert.equal((await ticketsOf(tenant, order.id)).length, 1);
  assert.equal(shopify.graphqlCalls('readybellTag').length, 1, 'tagged once');

  await webhookAndRun('fulfillment_orders/line_items_prepared_for_pickup', order);
  const ready = (await ticketsOf(tenant, order.id))[0];
  assert.equal(ready.status, 'ready');
  assert.equal(ready.rings, 1);
  await webhookAndRun('fulfillment_orders/line_items_prepared_for_pickup', order);
  assert.equal((await ticketsOf(tenant, order.id))[0].rings, 1, 'a second prepared rings nobody twice');
  assert.deepEqual(shopify.prepared, [], 'a ready that came from Shopify is not sent back to it');

  order.fulfillmentOrders[0]!.status = 'CLOSED';
  await webhookAndRun('fulfillments/create', order);
  assert.equal((await ticketsOf(tenant, order.id))[0].status, 'collected');
  const types = await eventTypes(tenant);
  assert.deepEqual(
    types.filter((e) => e !== 'ticket.rung'),
    ['ticket.created', 'ticket.ready', 'ticket.collected'],
  );
});

test('the same delivery twice, and racing webhooks of one order, make one ticket', async () => {
  const { tenant } = await connectedBranch();
  const order = shopify.addOrder();
  const w = shopify.webhook('orders/create', order);
  const answers = await Promise.all([deliver(w), deliver(w), deliver(w)]);
  assert.deepEqual(
    answers.map((r) => r.status),
    [200, 200, 200],
  );
  // Distinct deliveries for the same order (Shopify sends each topic with its own id), run at once.
  await Promise.all([deliver(shopify.webhook('orders/create', order)), deliver(shopify.webhook('orders/create', order))]);
  assert.equal(await t.app.runner.runOnce(), 3, 'one job per delivery id');
  assert.equal((await ticketsOf(tenant, order.id)).length, 1);
  assert.equal((await eventTypes(tenant)).filter((e) => e === 'ticket.created').length, 1);

  // A new order's orders/create and its prepared-for-pickup, delivered together and run at once.
  const raced = shopify.addOrder();
  await Promise.all([
    deliver(shopify.webhook('orders/create', raced)),
    deliver(shopify.webhook('fulfillment_orders/line_items_prepared_for_pickup', raced)),
  ]);
  assert.equal(await t.app.runner.runOnce(), 2);
  const [only, ...more] = await ticketsOf(tenant, raced.id);
  assert.equal(more.length, 0);
  assert.deepEqual([only.status, only.rings], ['ready', 1]);
});

test('a prepared-for-pickup webhook that outruns orders/create makes the ticket and rings it', async () => {
  const { tenant } = await connectedBranch();
  const order = shopify.addOrder();
  await webhookAndRun('fulfillment_orders/line_items_prepared_for_pickup', order);
  const [ticket] = await ticketsOf(tenant, order.id);
  assert.equal(ticket.status, 'ready');
  await webhookAndRun('orders/create', order);
  assert.equal((await ticketsOf(tenant, order.id)).length, 1);
});

test('orders/cancelled cancels; a shipped order, or a pickup at another location, makes no ticket', async () => {
  const { tenant } = await connectedBranch();
  const order = shopify.addOrder();
  await webhookAndRun('orders/create', order);
  order.cancelledAt = '2026-12-03T12:00:00Z';
  await webhookAndRun('orders/cancelled', order);
  const [ticket] = await ticketsOf(tenant, order.id);
  assert.equal(ticket.status, 'cancelled');
  assert.equal(ticket.cancellation_reason, 'Cancelled in Shopify');

  // An order picked up in part and shipped in part: the shipped part's fulfillment collects nothing.
  const mixed = shopify.addOrder();
  mixed.fulfillmentOrders.push({
    id: `${mixed.fulfillmentOrders[0]!.id}9`,
    status: 'CLOSED',
    methodType: 'SHIPPING',
    locationId: FakeShopify.LOCATION,
  });
  await webhookAndRun('orders/create', mixed);
  await webhookAndRun('fulfillments/create', mixed);
  assert.equal((await ticketsOf(tenant, mixed.id))[0].status, 'created');

  const shipped = shopify.addOrder({ methodType: 'SHIPPING' });
  await webhookAndRun('orders/create', shipped);
  assert.equal((await ticketsOf(tenant, shipped.id)).length, 0);
  const elsewhere = shopify.addOrder({ locationId: 'gid://shopify/Location/9999' });
  await webhookAndRun('orders/create', elsewhere);
  assert.equal((await ticketsOf(tenant, elsewhere.id)).length, 0);
  assert.deepEqual(shipped.tags, []);
});

test('unsigned, wrongly signed or changed webhooks are refused with 403 and enqueue nothing', async () => {
  await connectedBranch();
  const order = shopify.addOrder();
  const w = shopify.webhook('orders/create', order);
  const { 'x-shopify-hmac-sha256': _dropped, ...unsigned } = w.headers;
  const signed = (secret: string) => createHmac('sha256', secret).update(w.body).digest('base64');
  for (const [what, res] of [
    ['unsigned', await deliver({ body: w.body, headers: unsigned })],
    ['another secret', await deliver({ body: w.body, headers: { ...w.headers, 'x-shopify-hmac-sha256': signed('not-the-secret') } })],
    ['a changed body', await deliver({ body: w.body.replace('5', '6'), headers: w.headers })],
  ] as const) {
    assert.equal(res.status, 403, `${what}: ${res.text}`);
    assert.equal(res.body.code, 'forbidden', what);
  }
  assert.equal(await t.app.runner.runOnce(), 0, 'no job was enqueued');
  const other = await deliver(shopify.webhook('orders/create', order, { shop: 'someone-else.myshopify.com' }));
  assert.equal(other.status, 404, 'a shop connected to no branch');
  // A privacy (compliance) topic, even for a shop connected to no branch, is acknowledged and sets nothing off.
  const redact = await deliver(shopify.webhook('shop/redact', order, { shop: 'someone-else.myshopify.com' }));
  assert.equal(redact.status, 200, redact.text);
  assert.equal(await t.app.runner.runOnce(), 0);
});

test('Shopify’s throttle is waited out, and the order still becomes a ticket', async () => {
  const { tenant } = await connectedBranch();
  const order = shopify.addOrder();
  shopify.throttleOnce = true;
  await webhookAndRun('orders/create', order);
  assert.equal((await ticketsOf(tenant, order.id)).length, 0, 'put off while throttled');
  clock.advance(31_000);
  await t.app.runner.runOnce();
  assert.equal((await ticketsOf(tenant, order.id)).length, 1);
});

test('readybell’s ready (a request) marks the fulfillment order prepared for pickup; Shopify’s echo rings nobody again', async () => {
  const { tenant } = await connectedBranch();
  const order = shopify.addOrder();
  await webhookAndRun('orders/create', order);
  const [ticket] = await ticketsOf(tenant, order.id);
  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`, { key: tenant.testKey });
  assert.equal(ready.status, 200, ready.text);
  await t.app.runner.runOnce();
  assert.deepEqual(shopify.prepared, [order.fulfillmentOrders[0]!.id]);
  await webhookAndRun('fulfillment_orders/line_items_prepared_for_pickup', order);
  assert.equal((await ticketsOf(tenant, order.id))[0].rings, 1);

  // With mark_prepared off, readybell's ready stays in readybell.
  await current!.owner.as('PATCH', '/v1/connectors/shopify', { body: { mark_prepared: false } });
  const o2 = shopify.addOrder();
  await webhookAndRun('orders/create', o2);
  const [t2] = await ticketsOf(tenant, o2.id);
  assert.equal((await t.request('POST', `/v1/tickets/${t2.id}/ready`, { key: tenant.testKey })).status, 200);
  await t.app.runner.runOnce();
  assert.deepEqual(shopify.prepared, [order.fulfillmentOrders[0]!.id]);
});

test('app/uninstalled erases the shop’s connections; /readyz counts connected shops', async () => {
  const { owner } = await connectedBranch();
  assert.deepEqual((await t.request('GET', '/readyz', { key: null })).body.connectors.shopify, { connected: 1 });
  const order = shopify.addOrder();
  const res = await deliver(shopify.webhook('app/uninstalled', order));
  assert.equal(res.status, 200, res.text);
  assert.equal((await owner.as('GET', '/v1/connectors/shopify')).body.status, 'not_connected');
  assert.deepEqual((await t.request('GET', '/readyz', { key: null })).body.connectors.shopify, { connected: 0 });
  current = null;
});
