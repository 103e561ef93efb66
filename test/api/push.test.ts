// Web Push end to end: a customer's browser subscription (keys made here as a browser makes them)
// is stored through POST /t/<token>/push; ready rings through a local push service that checks the
// VAPID JWT and decrypts the aes128gcm payload exactly as a real one and the browser would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { TestPushService, type TestSubscription } from '../helpers/push-service.ts';

let t: TestApp;
let push: TestPushService;
const clock = new FakeClock();

before(async () => {
  push = await new TestPushService().start();
  t = await startTestApp({ clock, env: { PUSH_ALLOW_INSECURE_ENDPOINTS: 'true' } });
  push.expectedVapidKey = ((await (await fetch(`${t.url}/push/vapid.json`)).json()) as { public_key: string }).public_key;
});
after(async () => {
  await t.close();
  await push.close();
});

async function newTicket(): Promise<any> {
  const res = await t.request('POST', '/v1/tickets', { body: { queue: 'A' } });
  assert.equal(res.status, 201);
  return res.body;
}

async function subscribe(ticket: any, sub: TestSubscription): Promise<Response> {
  return fetch(`${ticket.url.replace('http://localhost:3000', t.url)}/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sub.json),
  });
}

async function subscriptionCount(ticketId: string): Promise<number> {
  const rows = await t.app.services.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM push_subscriptions WHERE ticket_id = $1', [
    ticketId,
  ]);
  return Number(rows[0]!.n);
}

test('the VAPID public key is an uncompressed P-256 point, served for the page script', async () => {
  const key = Buffer.from(push.expectedVapidKey!, 'base64url');
  assert.equal(key.length, 65);
  assert.equal(key[0], 4);
  const script = await fetch(`${t.url}/push.js`);
  assert.equal(script.status, 200);
  assert.match(script.headers.get('content-type') ?? '', /javascript/);
  assert.match(await script.text(), /window\.readybellPush = \{ supported: supported, subscribe: subscribe \}/);
  const sw = await (await fetch(`${t.url}/push-sw.js`)).text();
  assert.match(sw, /addEventListener\('push'/);
  assert.match(sw, /addEventListener\('notificationclick'/);
});

test('ready with a push subscription answers rang:true, channel_used:"push", and the browser can read the ring', async () => {
  const ticket = await newTicket();
  const sub = push.subscribe();
  const res = await subscribe(ticket, sub);
  assert.equal(res.status, 201);
  const after = await t.request('GET', `/v1/tickets/${ticket.id}`);
  assert.equal(after.body.customer.notifications, 'push', 'subscribing is the customer turning notifications on');

  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`);
  assert.equal(ready.status, 200);
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [true, 'push']);
  assert.deepEqual(push.failures, []);
  const [got] = push.pushesFor(sub);
  assert.ok(got, 'the push service accepted one ring');
  assert.equal(got.payload.display_number, ticket.display_number);
  assert.equal(got.payload.url, ticket.url);
  assert.equal(got.payload.title, `${ticket.display_number} is ready`);
  assert.equal(got.payload.reason, 'ready');
  assert.equal(got.headers.urgency, 'high');
  assert.equal(got.headers.ttl, '900');
  assert.equal(got.headers.topic, ticket.id);
  assert.equal(got.jwt.aud, push.url);

  // A recall reuses the ticket's topic, so the push service replaces a ring it still holds.
  clock.advance(11_000);
  const again = await t.request('POST', `/v1/tickets/${ticket.id}/ring`);
  assert.equal(again.body.channel_used, 'push');
  const pushes = push.pushesFor(sub);
  assert.equal(pushes.length, 2);
  assert.equal(pushes[1]!.headers.topic, ticket.id);
  assert.equal(pushes[1]!.payload.reason, 'manual');

  const events = await t.request('GET', '/v1/events?type=ticket.rung');
  const rung = events.body.data.filter((e: any) => e.data.object.id === ticket.id);
  assert.equal(rung.length, 2);
  assert.ok(rung.every((e: any) => e.data.ring.channel_used === 'push' && e.data.ring.rang === true));
  assert.ok(rung.some((e: any) => e.data.ring.channels.some((c: any) => c.channel === 'push' && c.delivered)));
});

test('a 410 from the push service removes the subscription, and the ring is not called delivered', async () => {
  const ticket = await newTicket();
  const sub = push.subscribe(410);
  assert.equal((await subscribe(ticket, sub)).status, 201);
  assert.equal(await subscriptionCount(ticket.id), 1);
  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`);
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [false, 'none']);
  assert.equal(await subscriptionCount(ticket.id), 0);
  clock.advance(11_000);
  await t.request('POST', `/v1/tickets/${ticket.id}/ring`);
  assert.equal(push.requests.get(sub.id), 1, 'a removed subscription is never pushed to again');
});

test('a push service that refuses (500) is reported, not counted as delivered', async () => {
  const ticket = await newTicket();
  const sub = push.subscribe(500);
  await subscribe(ticket, sub);
  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`);
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [false, 'none']);
  assert.equal(await subscriptionCount(ticket.id), 1, 'a temporary failure keeps the subscription');
});

test('two devices: one accepting push service is enough for "push"', async () => {
  const ticket = await newTicket();
  const ok = push.subscribe(201);
  const gone = push.subscribe(404);
  await subscribe(ticket, ok);
  await subscribe(ticket, gone);
  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`);
  assert.equal(ready.body.channel_used, 'push');
  assert.equal(push.pushesFor(ok).length, 1);
});

test('closing the ticket erases its push subscriptions', async () => {
  const ticket = await newTicket();
  await subscribe(ticket, push.subscribe());
  await subscribe(ticket, push.subscribe());
  assert.equal(await subscriptionCount(ticket.id), 2);
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/collect`)).status, 200);
  assert.equal(await subscriptionCount(ticket.id), 0);
  assert.equal((await subscribe(ticket, push.subscribe())).status, 409, 'a closed ticket takes no new subscription');
  assert.equal(await subscriptionCount(ticket.id), 0);
});
