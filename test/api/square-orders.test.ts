// Square orders becoming tickets (docs/decisions/0073), against a local fake of Square with the
// SDK pointed at it: notifications signed here with node:crypto as Square documents them, the
// jobs they set off run by hand on a fake clock. One order's life, webhook to collected; the same
// notification twice and two racing; PREPARED rings once; CANCELED; refused signatures; Square's
// rate limit; the token refresh and its failure; mark_prepared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeSquare } from '../helpers/fake-square.ts';
import { connectSquare, deliver, notifyAndRun, ownerOf, type Owner } from '../helpers/square.ts';
import { getTicket } from '../../src/store/tickets.ts';

const clock = new FakeClock();
let t: TestApp;
let square: FakeSquare;

before(async () => {
  square = await new FakeSquare().start();
  square.now = () => clock.now();
  t = await startTestApp({ clock, env: { ...square.env(), WEBHOOK_SECRETS_KEY: 'b'.repeat(64) } });
});
after(async () => {
  await t.close();
  await square.close();
});

/** A branch of its own connected to the fake merchant's location (one connection per merchant location: the others are disconnected first). */
let current: { owner: Owner; tenant: Tenant } | null = null;
async function connectedBranch(
  patch: Record<string, unknown> = {},
  plan: 'pro' | 'business' = 'pro',
): Promise<{ owner: Owner; tenant: Tenant }> {
  if (current !== null) await current.owner.as('DELETE', '/v1/connectors/square');
  const tenant = await t.newTenant({ plan });
  const owner = await ownerOf(t, tenant);
  await connectSquare(t, square, owner, patch);
  current = { owner, tenant };
  return current;
}

const ticketsOf = async (tenant: Tenant, orderId: string): Promise<any[]> =>
  (await t.request('GET', `/v1/tickets?external_ref=${orderId}`, { key: tenant.testKey })).body.data;

const eventTypes = async (tenant: Tenant): Promise<string[]> =>
  ((await t.request('GET', '/v1/events?limit=100', { key: tenant.testKey })).body.data as any[]).map((e) => e.type).reverse();

test('one order’s life: created → ticket and ticket_name → PREPARED rings → COMPLETED collects', async () => {
  const { tenant } = await connectedBranch({ queue: 'A' });
  const order = square.addOrder();
  await notifyAndRun(t, square, 'order.created', order);

  const [ticket, ...others] = await ticketsOf(tenant, order.id);
  assert.equal(others.length, 0);
  assert.equal(ticket.status, 'created');
  assert.equal(ticket.external_ref, order.id);
  assert.deepEqual(ticket.metadata, { source: 'square' });
  assert.equal(ticket.livemode, false, 'a sandbox order makes a test-mode ticket');
  // The display number written back to the order, with the version Square had.
  assert.equal(order.ticket_name, ticket.display_number);
  const put = square.callsTo('PUT', `/v2/orders/${order.id}`).at(-1)!;
  assert.deepEqual([put.body.order.version, put.body.order.ticket_name], [1, ticket.display_number]);

  // The ticket_name update makes Square send order.updated: it changes nothing.
  await notifyAndRun(t, square, 'order.updated', order);
  assert.equal((await ticketsOf(tenant, order.id)).length, 1);

  square.setFulfillment(order.id, 'PREPARED');
  await notifyAndRun(t, square, 'order.fulfillment.updated', order);
  const ready = (await ticketsOf(tenant, order.id))[0];
  assert.equal(ready.status, 'ready');
  assert.equal(ready.rings, 1);
  // Square retries, or sends PREPARED again: the ticket is ready already, nobody is rung twice.
  await notifyAndRun(t, square, 'order.fulfillment.updated', order);
  assert.equal((await ticketsOf(tenant, order.id))[0].rings, 1);

  square.setFulfillment(order.id, 'COMPLETED');
  await notifyAndRun(t, square, 'order.fulfillment.updated', order);
  assert.equal((await ticketsOf(tenant, order.id))[0].status, 'collected');

  // Where it came from, in every ticket.* event.
  const events = (await t.request('GET', '/v1/events?limit=100', { key: tenant.testKey })).body.data as any[];
  for (const e of events) assert.deepEqual(e.data.object.metadata, { source: 'square' }, e.type);
  const types = await eventTypes(tenant);
  assert.deepEqual(
    types.filter((e) => e !== 'ticket.rung'),
    ['ticket.created', 'ticket.ready', 'ticket.collected'],
  );
  assert.ok(types.indexOf('ticket.rung') > types.indexOf('ticket.ready'), `a ring after ready: ${types}`);
});

test('the same notification twice, and two notifications racing, make one ticket', async () => {
  const { tenant } = await connectedBranch();
  const order = square.addOrder();
  const n = square.notification('order.created', order);
  assert.equal((await deliver(t, n)).status, 200);
  assert.equal((await deliver(t, n)).status, 200, 'a retry of one notification is acknowledged');
  const both = await Promise.all([deliver(t, n), deliver(t, n, n.signature, 'application/json; charset=utf-8')]);
  assert.deepEqual(
    both.map((r) => r.status),
    [200, 200],
  );
  const raced = [square.notification('order.updated', order), square.notification('order.fulfillment.updated', order)];
  await Promise.all(raced.map((r) => deliver(t, r)));
  // Three distinct notifications, three jobs, run at once: one ticket.
  assert.equal(await t.app.runner.runOnce(), 3);
  const tickets = await ticketsOf(tenant, order.id);
  assert.equal(tickets.length, 1, JSON.stringify(tickets));
  assert.equal((await eventTypes(tenant)).filter((e) => e === 'ticket.created').length, 1);
});

test('CANCELED and FAILED cancel; an order without a pickup, or at another location, makes no ticket', async () => {
  const { tenant } = await connectedBranch();
  const order = square.addOrder();
  await notifyAndRun(t, square, 'order.created', order);
  square.setFulfillment(order.id, 'CANCELED');
  await notifyAndRun(t, square, 'order.fulfillment.updated', order);
  const [ticket] = await ticketsOf(tenant, order.id);
  assert.equal(ticket.status, 'cancelled');
  assert.equal(ticket.cancellation_reason, 'Cancelled in Square');

  const failed = square.addOrder();
  await notifyAndRun(t, square, 'order.created', failed);
  square.setFulfillment(failed.id, 'FAILED');
  await notifyAndRun(t, square, 'order.fulfillment.updated', failed);
  assert.deepEqual(
    (await ticketsOf(tenant, failed.id)).map((x) => [x.status, x.cancellation_reason]),
    [['cancelled', 'Failed in Square']],
  );

  const shipped = square.addOrder({ fulfillments: [{ uid: 'S1', type: 'SHIPMENT', state: 'PROPOSED' }] });
  await notifyAndRun(t, square, 'order.created', shipped);
  assert.equal((await ticketsOf(tenant, shipped.id)).length, 0);
  const elsewhere = square.addOrder({ location_id: 'LOTHER999' });
  await notifyAndRun(t, square, 'order.created', elsewhere);
  assert.equal((await ticketsOf(tenant, elsewhere.id)).length, 0);
});

test('unsigned, wrongly signed or re-addressed notifications are refused with 403 and change nothing', async () => {
  await connectedBranch();
  const order = square.addOrder();
  const n = square.notification('order.created', order);
  const jobsBefore = await t.app.runner.runOnce();
  assert.equal(jobsBefore, 0);
  for (const [what, res] of [
    ['unsigned', await deliver(t, n, null)],
    ['another key', await deliver(t, square.notification('order.created', order, { key: 'not-the-key' }))],
    ['another URL', await deliver(t, square.notification('order.created', order, { url: 'https://elsewhere.example/hook' }))],
    ['a changed body', await deliver(t, { body: n.body.replace(order.id, 'ORDOTHER'), signature: n.signature })],
  ] as const) {
    assert.equal(res.status, 403, `${what}: ${res.text}`);
    assert.equal(res.body.code, 'forbidden', what);
  }
  assert.equal(await t.app.runner.runOnce(), 0, 'no job was enqueued');
});

test('Square’s rate limit (429 with Retry-After) is waited out, and the order still becomes a ticket', async () => {
  const { tenant } = await connectedBranch();
  const order = square.addOrder();
  square.rateLimitOnce.add(`GET /v2/orders/${order.id}`);
  await notifyAndRun(t, square, 'order.created', order);
  assert.equal(square.callsTo('GET', `/v2/orders/${order.id}`).length, 2, 'asked again after the 429');
  assert.equal((await ticketsOf(tenant, order.id)).length, 1);
});

test('the phone of the pickup recipient is kept only where the branch may text it', async () => {
  const pro = await connectedBranch();
  const o1 = square.addOrder({ phone: '+447400123456' });
  await notifyAndRun(t, square, 'order.created', o1);
  // The phone never leaves through the API (personal data): read where it is kept.
  const phoneOf = async (tenant: Tenant, orderId: string) =>
    (await getTicket(t.app.services.db, tenant.branchId, 'test', (await ticketsOf(tenant, orderId))[0].id))?.customerPhone;
  assert.equal(await phoneOf(pro.tenant, o1.id), null);

  const biz = await connectedBranch({}, 'business');
  const o2 = square.addOrder({ phone: '+447400123456' });
  await notifyAndRun(t, square, 'order.created', o2);
  assert.equal(await phoneOf(biz.tenant, o2.id), '+447400123456');
});

test('mark_prepared: readybell’s ready (a request) marks the Square pickup PREPARED, and Square’s echo rings nobody again', async () => {
  const { tenant } = await connectedBranch({ mark_prepared: true });
  const order = square.addOrder();
  await notifyAndRun(t, square, 'order.created', order);
  const [ticket] = await ticketsOf(tenant, order.id);
  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`, { key: tenant.testKey });
  assert.equal(ready.status, 200, ready.text);
  await t.app.runner.runOnce();
  assert.equal(order.fulfillments[0]!.state, 'PREPARED');
  const put = square.callsTo('PUT', `/v2/orders/${order.id}`).at(-1)!;
  assert.equal(put.body.order.fulfillments[0].state, 'PREPARED');
  assert.equal(put.body.order.version, order.version - 1, 'with the version read');
  await notifyAndRun(t, square, 'order.fulfillment.updated', order);
  assert.equal((await ticketsOf(tenant, order.id))[0].rings, 1);

  // A ready that came from Square is not sent back to it.
  const o2 = square.addOrder();
  await notifyAndRun(t, square, 'order.created', o2);
  square.setFulfillment(o2.id, 'PREPARED');
  const puts = square.callsTo('PUT', `/v2/orders/${o2.id}`).length;
  await notifyAndRun(t, square, 'order.fulfillment.updated', o2);
  await t.app.runner.runOnce();
  assert.equal(square.callsTo('PUT', `/v2/orders/${o2.id}`).length, puts);
});

test('tokens are refreshed a week before they run out; a refused refresh shows in the connection and in /readyz', async () => {
  const { tenant } = await connectedBranch();
  // Staff sessions idle out over the weeks the clock moves: each look is a fresh sign-in.
  const owner = { as: async (method: string, path: string) => (await ownerOf(t, tenant)).as(method, path) };
  const first = (await owner.as('GET', '/v1/connectors/square')).body.token_expires_at;
  assert.deepEqual(await t.app.connectors.get('square')!.refreshTokens(), { refreshed: 0, failed: 0 }, 'nothing due 30 days ahead');
  clock.advance(24 * 24 * 3600_000);
  assert.deepEqual(await t.app.connectors.get('square')!.refreshTokens(), { refreshed: 1, failed: 0 });
  const renewed = (await owner.as('GET', '/v1/connectors/square')).body;
  assert.ok(Date.parse(renewed.token_expires_at) > Date.parse(first), `a new expiry: ${first} then ${renewed.token_expires_at}`);
  assert.equal(renewed.status, 'connected');
  // Square accepts the new token and not only the old one.
  const locations = await owner.as('GET', '/v1/connectors/square/locations');
  assert.equal(locations.status, 200, locations.text);

  square.refuseRefresh = true;
  try {
    clock.advance(24 * 24 * 3600_000);
    assert.deepEqual(await t.app.connectors.get('square')!.refreshTokens(), { refreshed: 0, failed: 1 });
    const failed = (await owner.as('GET', '/v1/connectors/square')).body;
    assert.equal(failed.status, 'refresh_failed');
    assert.match(failed.last_error, /^Token refresh failed: ObtainToken: 401 UNAUTHORIZED/);
    const ready = await t.request('GET', '/readyz', { key: null });
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body.connectors, { square: { refresh_failed: 1 } });
  } finally {
    square.refuseRefresh = false;
  }
  assert.deepEqual(await t.app.connectors.get('square')!.refreshTokens(), { refreshed: 1, failed: 0 });
  assert.equal((await owner.as('GET', '/v1/connectors/square')).body.status, 'connected');
  assert.deepEqual((await t.request('GET', '/readyz', { key: null })).body.connectors, { square: { refresh_failed: 0 } });
});
