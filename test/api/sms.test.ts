// SMS against a local fake of a Twilio-compatible provider: sent only on the business plan, only
// with a phone, only when neither push nor page reached the customer; simulated in test mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeSmsProvider } from '../helpers/sms-provider.ts';
import { TestPushService } from '../helpers/push-service.ts';

let t: TestApp;
let sms: FakeSmsProvider;
let push: TestPushService;
let biz: Tenant;
const clock = new FakeClock();
const PHONE = '+14155550123';

before(async () => {
  sms = await new FakeSmsProvider().start();
  push = await new TestPushService().start();
  t = await startTestApp({ clock, env: { ...sms.env(), PUSH_ALLOW_INSECURE_ENDPOINTS: 'true' } });
  biz = await t.newTenant({ plan: 'business' });
});
after(async () => {
  await t.close();
  await sms.close();
  await push.close();
});

async function ticketFor(key: string, body: Record<string, unknown> = { customer_phone: PHONE }): Promise<any> {
  const res = await t.request('POST', '/v1/tickets', { key, body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const ready = (key: string, id: string) => t.request('POST', `/v1/tickets/${id}/ready`, { key });

async function rungEvent(key: string, ticketId: string): Promise<any> {
  const events = await t.request('GET', '/v1/events?type=ticket.rung', { key });
  return events.body.data.find((e: any) => e.data.object.id === ticketId);
}

test('business plan, phone given, nothing else reached: the provider takes an SMS with the number and link', async () => {
  const ticket = await ticketFor(biz.liveKey);
  const before = sms.requests;
  const res = await ready(biz.liveKey, ticket.id);
  assert.equal(res.status, 200);
  assert.deepEqual([res.body.rang, res.body.channel_used], [true, 'sms']);
  assert.equal(sms.requests, before + 1);
  const msg = sms.messages.at(-1)!;
  assert.equal(msg.to, PHONE);
  assert.equal(msg.from, FakeSmsProvider.FROM);
  assert.ok(msg.body.includes(ticket.display_number), msg.body);
  assert.ok(msg.body.includes(ticket.url), msg.body);
  const event = await rungEvent(biz.liveKey, ticket.id);
  assert.deepEqual(
    event.data.ring.channels.find((c: any) => c.channel === 'sms'),
    { channel: 'sms', delivered: true, detail: 'accepted' },
  );
});

test('pro plan: no SMS, the ready answer is "none"', async () => {
  const ticket = await ticketFor(t.tenant.liveKey);
  const before = sms.requests;
  const res = await ready(t.tenant.liveKey, ticket.id);
  assert.deepEqual([res.body.rang, res.body.channel_used], [false, 'none']);
  assert.equal(sms.requests, before);
});

test('test mode simulates the SMS: reported as sent, the provider is never called', async () => {
  const ticket = await ticketFor(biz.testKey);
  const before = sms.requests;
  const res = await ready(biz.testKey, ticket.id);
  assert.deepEqual([res.body.rang, res.body.channel_used], [true, 'sms']);
  assert.equal(sms.requests, before);
  const event = await rungEvent(biz.testKey, ticket.id);
  assert.equal(event.data.ring.channels.find((c: any) => c.channel === 'sms').detail, 'simulated (test mode)');
});

test('no phone, or the branch turned SMS off: no SMS', async () => {
  const before = sms.requests;
  const noPhone = await ticketFor(biz.liveKey, {});
  assert.equal((await ready(biz.liveKey, noPhone.id)).body.channel_used, 'none');
  const other = await t.newTenant({ plan: 'business' });
  assert.equal((await t.request('PATCH', '/v1/branch', { key: other.liveKey, body: { sms_enabled: false } })).status, 200);
  const off = await ticketFor(other.liveKey);
  assert.equal((await ready(other.liveKey, off.id)).body.channel_used, 'none');
  assert.equal(sms.requests, before);
});

test('a customer reached by push gets no SMS', async () => {
  const ticket = await ticketFor(biz.liveKey);
  const sub = push.subscribe();
  const res = await fetch(`${ticket.url.replace('http://localhost:3000', t.url)}/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sub.json),
  });
  assert.equal(res.status, 201);
  const before = sms.requests;
  assert.equal((await ready(biz.liveKey, ticket.id)).body.channel_used, 'push');
  assert.equal(sms.requests, before);
});

test('the provider refusing is reported, not counted as reached', async () => {
  const ticket = await ticketFor(biz.liveKey);
  sms.reply = 500;
  try {
    const res = await ready(biz.liveKey, ticket.id);
    assert.deepEqual([res.body.rang, res.body.channel_used], [false, 'none']);
  } finally {
    sms.reply = 201;
  }
  const event = await rungEvent(biz.liveKey, ticket.id);
  assert.deepEqual(
    event.data.ring.channels.find((c: any) => c.channel === 'sms'),
    { channel: 'sms', delivered: false, detail: 'rejected (500 code 30500)' },
  );
});

test('the text follows the branch language', async () => {
  const fr = await t.newTenant({ plan: 'business' });
  await t.request('PATCH', '/v1/branch', { key: fr.liveKey, body: { name: 'Chez Paul', customer_page: { language: 'fr' } } });
  const ticket = await ticketFor(fr.liveKey);
  await ready(fr.liveKey, ticket.id);
  assert.equal(
    sms.messages.at(-1)!.body,
    `Chez Paul : votre commande ${ticket.display_number} est prête. Merci de venir au comptoir. ${ticket.url}`,
  );
});

test('the phone number is erased when the ticket closes', async () => {
  const ticket = await ticketFor(biz.liveKey);
  const phone = async () =>
    (await t.app.services.db.query<{ p: string | null }>('SELECT customer_phone AS p FROM tickets WHERE id = $1', [ticket.id]))[0]!.p;
  assert.equal(await phone(), PHONE);
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/cancel`, { key: biz.liveKey })).status, 200);
  assert.equal(await phone(), null);
});
