// Webhook delivery end to end: a real receiver on 127.0.0.1 checks every signature with the
// published verifier; a fake clock walks the retry schedule (runOnce instead of waiting).
import { test, before, after, beforeEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { startWebhookWorld, createEndpoint, createTicket, deliveriesOf, fakeLookup, type WebhookWorld } from '../helpers/webhooks.ts';
import type { Tenant } from '../helpers/app.ts';

let w: WebhookWorld;
let tenant: Tenant;
before(async () => {
  w = await startWebhookWorld({}, { webhookLookup: fakeLookup({ 'hooks.example.com': '93.184.216.34' }) });
});
after(() => w.close());
beforeEach(async () => {
  // A fresh branch per test: its endpoints see only its own events.
  tenant = await w.t.newTenant();
  w.receiver.deliveries.length = 0;
  w.receiver.answer = () => ({ status: 200, body: 'ok' });
});

const run = (): Promise<number> => w.t.app.runner.runOnce();
// Deliveries for this test's branch: earlier tests may leave retries that come due later.
const mine = () => w.receiver.deliveries.filter((d) => d.event?.branch === tenant.branchId);
const endpoint = async (extra: Record<string, unknown> = {}) => {
  const e = await createEndpoint(w.t, { url: `${w.receiver.url}/hook`, ...extra }, tenant.testKey);
  w.receiver.secrets = [e.secret];
  return e;
};

test('a test-mode ticket.created reaches the test endpoint, signed, and never the live one', async () => {
  const testEndpoint = await endpoint();
  const live = await createEndpoint(w.t, { url: 'https://hooks.example.com/readybell' }, tenant.liveKey);
  const ticketId = await createTicket(w.t, tenant.testKey);
  await run();
  assert.equal(mine().length, 1);
  const d = mine()[0]!;
  assert.deepEqual(d.verifiedBy, [testEndpoint.secret]);
  assert.deepEqual(d.standardVerifiedBy, [testEndpoint.secret]);
  assert.equal(d.event!.type, 'ticket.created');
  assert.equal(d.event!.livemode, false);
  assert.equal((d.event!.data.object as { id: string }).id, ticketId);
  assert.equal(d.headers['content-type'], 'application/json');
  assert.equal(d.headers['service-event-id'], d.event!.id);
  assert.equal(d.headers['service-event-type'], 'ticket.created');
  assert.equal(d.headers['webhook-id'], d.event!.id);
  assert.equal(d.headers['webhook-timestamp'], String(d.t));
  assert.match(String(d.headers['user-agent']), /^readybell-webhooks\/\d+\.\d+\.\d+/);
  assert.equal(d.t, Math.floor(w.clock.now() / 1000));
  // The body is the stored event, byte for byte.
  const stored = await w.t.request('GET', `/v1/events/${d.event!.id}`, { key: tenant.testKey });
  assert.deepEqual(JSON.parse(d.body), stored.body);

  assert.deepEqual(await deliveriesOf(w.t, live.id, tenant.liveKey), []);
  const [delivery] = await deliveriesOf(w.t, testEndpoint.id, tenant.testKey);
  assert.equal(delivery.status, 'succeeded');
  assert.equal(delivery.event, d.event!.id);
  assert.equal(delivery.attempts[0].response_status, 200);
  assert.equal(delivery.attempts[0].response_body, 'ok');
});

test('a customer action played with the test helpers reaches the test endpoint, never the live one', async () => {
  const testEndpoint = await endpoint({ enabled_events: ['ticket.customer_viewed', 'ticket.customer_snoozed'] });
  const live = await createEndpoint(w.t, { url: 'https://hooks.example.com/readybell' }, tenant.liveKey);
  const ticketId = await createTicket(w.t, tenant.testKey);
  const viewed = await w.t.request('POST', `/v1/test_helpers/tickets/${ticketId}/customer/view`, { key: tenant.testKey });
  assert.equal(viewed.status, 200, viewed.text);
  assert.equal((await w.t.request('POST', `/v1/tickets/${ticketId}/ready`, { key: tenant.testKey })).status, 200);
  const snoozed = await w.t.request('POST', `/v1/test_helpers/tickets/${ticketId}/customer/snooze`, {
    key: tenant.testKey,
    body: { minutes: 7 },
  });
  assert.equal(snoozed.status, 200, snoozed.text);
  await run();
  assert.deepEqual(
    mine()
      .map((d) => d.event!.type)
      .sort(),
    ['ticket.customer_snoozed', 'ticket.customer_viewed'],
  );
  assert.ok(mine().every((d) => d.verifiedBy[0] === testEndpoint.secret && d.event!.livemode === false));
  const snooze = mine().find((d) => d.event!.type === 'ticket.customer_snoozed')!.event!;
  assert.ok(snooze.type === 'ticket.customer_snoozed');
  assert.equal(snooze.data.minutes, 7);
  assert.equal(snooze.data.object.id, ticketId);
  assert.deepEqual(await deliveriesOf(w.t, live.id, tenant.liveKey), []);
});

test("a delivery verifies unchanged with the Standard Webhooks library and Stripe's constructEvent, with either secret while a rotated one lives", async () => {
  const e = await endpoint();
  const rotated = await w.t.request('POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`, {
    key: tenant.testKey,
    body: { expires_in: 3600 },
  });
  assert.equal(rotated.status, 200, rotated.text);
  w.receiver.secrets = [e.secret, rotated.body.secret];
  await createTicket(w.t, tenant.testKey);
  await run();
  const [d] = mine();
  assert.ok(d !== undefined);
  const headers = d.headers as Record<string, string>;
  const stripe = new Stripe('sk_test_unused');
  // The Standard Webhooks library reads the clock itself: put it at the delivery's signing time.
  mock.timers.enable({ apis: ['Date'], now: w.clock.now() });
  try {
    for (const secret of [e.secret, rotated.body.secret as string]) {
      assert.deepEqual(new Webhook(secret).verify(d.body, headers), JSON.parse(d.body));
      assert.deepEqual(stripe.webhooks.constructEvent(d.body, headers['service-signature']!, secret), JSON.parse(d.body));
    }
    assert.throws(() => new Webhook(rotated.body.secret).verify(d.body.replace('ticket.created', 'ticket.collected'), headers));
    assert.throws(() => stripe.webhooks.constructEvent(d.body, headers['service-signature']!, 'whsec_someone_else'));
  } finally {
    mock.timers.reset();
  }
});

test('500, 500, 500, then 200: four deliveries of the same event, each with a new t, on the schedule', async () => {
  const e = await endpoint();
  w.receiver.answer = (_d, n) => (n <= 3 ? { status: 500, body: 'kitchen on fire' } : { status: 200 });
  await createTicket(w.t, tenant.testKey);
  await run();
  assert.equal(mine().length, 1);
  // 5 s, 5 min, 30 min with ±10 % jitter: nothing before 90 % of a step, something by 110 %.
  for (const step of [5_000, 300_000, 1_800_000]) {
    const before = mine().length;
    w.clock.advance(step * 0.89);
    await run();
    assert.equal(mine().length, before, `no attempt before ${step * 0.9} ms`);
    w.clock.advance(step * 0.22);
    await run();
    assert.equal(mine().length, before + 1, `an attempt by ${step * 1.1} ms`);
  }
  const got = mine();
  assert.equal(got.length, 4);
  assert.equal(new Set(got.map((d) => d.event!.id)).size, 1);
  assert.equal(new Set(got.map((d) => d.body)).size, 1);
  assert.equal(new Set(got.map((d) => d.t)).size, 4);
  assert.ok(got.every((d) => d.verifiedBy.length === 1));
  const [delivery] = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.equal(delivery.status, 'succeeded');
  assert.equal(delivery.attempt_count, 4);
  assert.deepEqual(
    delivery.attempts.map((a: { response_status: number }) => a.response_status),
    [500, 500, 500, 200],
  );
  assert.equal(delivery.attempts[0].response_body, 'kitchen on fire');
  assert.equal(delivery.next_attempt_at, null);
});

test('a Retry-After longer than the schedule is honoured, in seconds or as an HTTP date', async () => {
  await endpoint();
  w.receiver.answer = (_d, n) => {
    if (n === 1) return { status: 503, headers: { 'retry-after': '120' } };
    if (n === 2) return { status: 429, headers: { 'retry-after': new Date(w.clock.now() + 3600_000).toUTCString() } };
    return { status: 200 };
  };
  await createTicket(w.t, tenant.testKey);
  await run();
  w.clock.advance(10_000);
  await run();
  assert.equal(mine().length, 1, 'not at the scheduled 5 s');
  w.clock.advance(111_000);
  await run();
  assert.equal(mine().length, 2, 'after the 120 s asked for');
  w.clock.advance(1800_000);
  await run();
  assert.equal(mine().length, 2, 'not at the scheduled 5 min');
  w.clock.advance(1801_000);
  await run();
  assert.equal(mine().length, 3, 'after the hour the date asked for');
});

test('410 Gone disables the endpoint at once; it gets nothing more until re-enabled', async () => {
  const e = await endpoint();
  w.receiver.answer = () => ({ status: 410, body: 'gone' });
  await createTicket(w.t, tenant.testKey);
  await run();
  const got = await w.t.request('GET', `/v1/webhook_endpoints/${e.id}`, { key: tenant.testKey });
  assert.equal(got.body.disabled, true);
  assert.match(got.body.disabled_reason, /410/);
  assert.ok(got.body.disabled_at);
  const [first] = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.equal(first.status, 'failed');

  await createTicket(w.t, tenant.testKey);
  w.clock.advance(3600_000);
  await run();
  assert.equal(mine().length, 1);
  assert.equal((await deliveriesOf(w.t, e.id, tenant.testKey)).length, 1, 'no delivery is even created');

  w.receiver.answer = () => ({ status: 204 });
  const enabled = await w.t.request('PATCH', `/v1/webhook_endpoints/${e.id}`, { key: tenant.testKey, body: { disabled: false } });
  assert.equal(enabled.body.disabled, false);
  assert.equal(enabled.body.disabled_reason, null);
  await createTicket(w.t, tenant.testKey);
  await run();
  assert.equal(mine().length, 2);
});

test('rotation: two v1 values, each verifying with its own secret; after the overlap only the new one', async () => {
  const e = await endpoint();
  const rotated = await w.t.request('POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`, {
    key: tenant.testKey,
    body: { expires_in: 3600 },
  });
  assert.equal(rotated.status, 200, rotated.text);
  const fresh = rotated.body.secret as string;
  assert.match(fresh, /^whsec_/);
  assert.notEqual(fresh, e.secret);
  assert.equal(rotated.body.previous_secret_expires_at, new Date(w.clock.now() + 3600_000).toISOString());
  w.receiver.secrets = [e.secret, fresh];

  await createTicket(w.t, tenant.testKey);
  await run();
  const during = mine()[0]!;
  assert.equal(during.v1.length, 2);
  assert.deepEqual(during.verifiedBy.sort(), [e.secret, fresh].sort());
  assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
  assert.deepEqual(during.standardVerifiedBy.sort(), [e.secret, fresh].sort());
  // Each v1 alone verifies with exactly one of the secrets.
  const { verifyWebhook } = await import('readybell/webhooks');
  const opts = { nowSeconds: during.t };
  const alone = (v: string) => `t=${during.t},v1=${v}`;
  const matches = (v: string) =>
    [e.secret, fresh].filter((s) => {
      try {
        verifyWebhook(during.body, alone(v), s, opts);
        return true;
      } catch {
        return false;
      }
    });
  assert.deepEqual(during.v1.map(matches), [[fresh], [e.secret]]);

  w.clock.advance(3600_000 + 1000);
  await createTicket(w.t, tenant.testKey);
  await run();
  const afterwards = mine()[1]!;
  assert.equal(afterwards.v1.length, 1);
  assert.deepEqual(afterwards.verifiedBy, [fresh]);
  assert.deepEqual(afterwards.standardVerifiedBy, [fresh]);
  const shown = await w.t.request('GET', `/v1/webhook_endpoints/${e.id}`, { key: tenant.testKey });
  assert.equal(shown.body.previous_secret_expires_at, null);
  assert.equal(shown.body.secret, undefined);
});

test('only enabled_events are sent; a test ping goes to the endpoint whatever its filter', async () => {
  const e = await endpoint({ enabled_events: ['ticket.ready'] });
  const ticketId = await createTicket(w.t, tenant.testKey);
  await run();
  assert.equal(mine().length, 0);
  const ready = await w.t.request('POST', `/v1/tickets/${ticketId}/ready`, { key: tenant.testKey });
  assert.equal(ready.status, 200, ready.text);
  await run();
  assert.deepEqual(
    mine().map((d) => d.event!.type),
    ['ticket.ready'],
  );

  const ping = await w.t.request('POST', `/v1/webhook_endpoints/${e.id}/test`, { key: tenant.testKey });
  assert.equal(ping.status, 202, ping.text);
  assert.equal(ping.body.status, 'pending');
  assert.equal(ping.body.event_type, 'ping');
  await run();
  const last = mine().at(-1)!;
  assert.equal(last.event!.type, 'ping');
  assert.equal((last.event!.data.object as { id: string }).id, e.id);
  assert.equal((last.event!.data.object as { secret?: string }).secret, undefined);
});

test("a ready's ticket.ready and ticket.rung both reach the endpoint listed once for its transaction", async () => {
  // On PostgreSQL the ready's UPDATE reads the endpoints and both events reuse that list
  // (decision 0054); each event must still reach every endpoint that wants it.
  const both = await endpoint({ enabled_events: ['ticket.ready', 'ticket.rung'] });
  const other = await endpoint({ enabled_events: ['ticket.rung'] });
  w.receiver.secrets = [both.secret, other.secret];
  const ticketId = await createTicket(w.t, tenant.testKey);
  const ready = await w.t.request('POST', `/v1/tickets/${ticketId}/ready`, { key: tenant.testKey });
  assert.equal(ready.status, 200, ready.text);
  await run();
  assert.deepEqual(
    mine()
      .map((d) => d.event!.type)
      .sort(),
    ['ticket.ready', 'ticket.rung', 'ticket.rung'],
  );
  assert.deepEqual(
    (await deliveriesOf(w.t, other.id, tenant.testKey)).map((d) => d.event_type),
    ['ticket.rung'],
  );
});

test('the delivery log lists every attempt, and a manual retry delivers at once without a second automatic one', async () => {
  const e = await endpoint();
  w.receiver.answer = (_d, n) => (n === 1 ? { status: 502, body: 'x'.repeat(3000) } : { status: 200, body: 'thanks' });
  await createTicket(w.t, tenant.testKey);
  await run();
  let [delivery] = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.equal(delivery.status, 'pending');
  assert.equal(delivery.attempt_count, 1);
  assert.equal(delivery.last_response_status, 502);
  assert.equal(delivery.attempts[0].response_body.length, 1024, 'first 1 KB of the answer');
  assert.equal(typeof delivery.attempts[0].duration_ms, 'number');
  assert.ok(Date.parse(delivery.next_attempt_at) > w.clock.now());

  const other = await w.t.newTenant();
  assert.equal((await w.t.request('POST', `/v1/webhook_deliveries/${delivery.id}/retry`, { key: other.testKey })).status, 404);
  assert.equal((await w.t.request('POST', `/v1/webhook_deliveries/${delivery.id}/retry`, { key: tenant.liveKey })).status, 404);

  const retried = await w.t.request('POST', `/v1/webhook_deliveries/${delivery.id}/retry`, { key: tenant.testKey });
  assert.equal(retried.status, 202, retried.text);
  await run();
  assert.equal(mine().length, 2);
  [delivery] = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.equal(delivery.status, 'succeeded');
  assert.deepEqual(
    delivery.attempts.map((a: { manual: boolean; response_status: number }) => [a.manual, a.response_status]),
    [
      [false, 502],
      [true, 200],
    ],
  );
  w.clock.advance(10_000);
  await run();
  assert.equal(mine().length, 2, 'the automatic retry finds the delivery done');

  const single = await w.t.request('GET', `/v1/webhook_deliveries/${delivery.id}`, { key: tenant.testKey });
  assert.equal(single.body.id, delivery.id);
  assert.equal(single.body.attempts.length, 2);
});

test('an idempotent replay creates no second event and no second delivery', async () => {
  const e = await endpoint();
  const headers = { 'idempotency-key': `replay-${tenant.branchId}` };
  const first = await w.t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { queue: 'A' }, headers });
  const again = await w.t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { queue: 'A' }, headers });
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.text, first.text);
  await run();
  assert.equal(mine().length, 1);
  assert.equal((await deliveriesOf(w.t, e.id, tenant.testKey)).length, 1);
  const events = await w.t.request('GET', '/v1/events?type=ticket.created', { key: tenant.testKey });
  assert.equal(events.body.data.length, 1);
  assert.equal(events.body.data[0].request.idempotency_key, headers['idempotency-key']);
});
