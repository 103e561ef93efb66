// The Square connector on the connector port (decision 0076) and the hardening of issue 36 item 7,
// against the local fake of Square: a signed body that is JSON but no object is a 400 problem, not
// a 500; an order without a pickup fulfillment leaves a log line and a count; the token refresh is
// a scheduled job that runs once when a node starts and then every hour; and where a ticket came
// from is the server's word: a client that writes "source":"square" into its metadata is not Square.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeSquare } from '../helpers/fake-square.ts';
import { connectSquare, deliver, notifyAndRun, ownerOf, type Owner } from '../helpers/square.ts';

const clock = new FakeClock();
let t: TestApp;
let square: FakeSquare;
const logLines: string[] = [];

before(async () => {
  square = await new FakeSquare().start();
  square.now = () => clock.now();
  t = await startTestApp({
    clock,
    env: { ...square.env(), WEBHOOK_SECRETS_KEY: 'c'.repeat(64), LOG_LEVEL: 'info' },
    logDestination: { write: (line: string) => void logLines.push(line) },
  });
});
after(async () => {
  await t.close();
  await square.close();
});

let current: Owner | null = null;
async function connectedBranch(patch: Record<string, unknown> = {}): Promise<{ owner: Owner; tenant: Tenant }> {
  // A fresh session: the clock may have moved past the last one's idle limit.
  if (current !== null) assert.equal((await (await ownerOf(t, current.tenant)).as('DELETE', '/v1/connectors/square')).status, 200);
  const tenant = await t.newTenant({ plan: 'pro' });
  const owner = await ownerOf(t, tenant);
  await connectSquare(t, square, owner, patch);
  current = owner;
  return { owner, tenant };
}

/** A body signed with the subscription's key, as Square signs (URL + body). */
const signed = (body: string) => ({
  body,
  signature: createHmac('sha256', FakeSquare.SIGNATURE_KEY)
    .update(`http://localhost:3000/connectors/square/webhook${body}`)
    .digest('base64'),
});

test('a signed body that is JSON but not an object (null, a number, a list) is a 400 problem, never a 500', async () => {
  for (const body of ['null', '42', '[]', '"order.created"']) {
    const res = await deliver(t, signed(body));
    assert.equal(res.status, 400, `${body}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  }
});

test('an order without a pickup fulfillment makes no ticket, and says so in the log and a counter', async () => {
  const { tenant } = await connectedBranch();
  const ignored = async (): Promise<number> =>
    (await t.app.services.metrics!.connectorOrdersIgnored.get()).values.find(
      (v) => v.labels.connector === 'square' && v.labels.reason === 'no_pickup',
    )?.value ?? 0;
  const before = await ignored();
  const order = square.addOrder({ fulfillments: [{ uid: 'FUL-S', type: 'SHIPMENT', state: 'PROPOSED' }] });
  await notifyAndRun(t, square, 'order.created', order);
  const tickets = (await t.request('GET', `/v1/tickets?external_ref=${order.id}`, { key: tenant.testKey })).body.data;
  assert.equal(tickets.length, 0);
  assert.equal(await ignored(), before + 1);
  const line = logLines.map((l) => JSON.parse(l)).find((l) => l.order === order.id);
  assert.ok(line, 'a log line names the order');
  assert.match(line.msg, /without a pickup fulfillment/);
});

test('the token refresh is a job in the queue: it runs when a node starts, then every hour', async () => {
  const { owner } = await connectedBranch();
  const expiry = async () => (await (await ownerOf(t, owner.tenant)).as('GET', '/v1/connectors/square')).body.token_expires_at;
  const first = await expiry();
  clock.advance(24 * 24 * 3600_000); // within a week of the token's end
  const refreshes = () => square.callsTo('POST', '/oauth2/token').filter((c) => c.body.grant_type === 'refresh_token').length;
  const before = refreshes();
  // A node starting (no hourly timer has fired yet): the refresh runs at once.
  await t.app.startSchedules();
  await t.app.runner.runOnce();
  assert.equal(refreshes(), before + 1, 'refreshed at start');
  const renewed = await expiry();
  assert.ok(Date.parse(renewed) > Date.parse(first));
  // The next slot is a job too: an hour on, it runs (nothing is due any more, so Square is not asked).
  square.refuseRefresh = false;
  clock.advance(3600_000);
  await t.app.runner.runOnce();
  const jobs = await t.app.services.db.query<{ key: string }>("SELECT key FROM jobs WHERE kind = 'square_token_refresh'");
  assert.ok(jobs.length >= 2, `the start run and the hourly slots are jobs: ${jobs.map((j) => j.key).join(', ')}`);
});

test('a client cannot claim to be Square: metadata "source":"square" neither sets off mark_prepared nor is taken for the order’s ticket', async () => {
  const { tenant } = await connectedBranch({ mark_prepared: true });
  const order = square.addOrder();
  // An API client creates a ticket that says it is Square's, for the same order id.
  const forged = await t.request('POST', '/v1/tickets', {
    key: tenant.testKey,
    body: { external_ref: order.id, metadata: { source: 'square' } },
  });
  assert.equal(forged.status, 201, forged.text);
  const ready = await t.request('POST', `/v1/tickets/${forged.body.id}/ready`, { key: tenant.testKey });
  assert.equal(ready.status, 200, ready.text);
  await t.app.runner.runOnce();
  assert.equal(square.callsTo('PUT', `/v2/orders/${order.id}`).length, 0, 'Square is not told of a ready it did not make');
  // Square's own order gets its own ticket: the forged one is not adopted.
  await notifyAndRun(t, square, 'order.created', order);
  const tickets = (await t.request('GET', `/v1/tickets?external_ref=${order.id}`, { key: tenant.testKey })).body.data as any[];
  assert.equal(tickets.length, 2);
  const real = tickets.find((x) => x.id !== forged.body.id);
  assert.equal(real.status, 'created');
  assert.equal(order.ticket_name, real.display_number);
});
