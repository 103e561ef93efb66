// WhatsApp as a paid channel (decision 0091), against the local fake of Twilio's API that SMS's tests
// use: off until a branch turns it on, on the business plan only; the ready goes as the approved
// template outside the customer's 24-hour window and as free text inside it; receipts, replies
// (1, 5, STOP) and the reply budget work as SMS's; test mode never calls the provider. One server,
// a fake clock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeSmsProvider, type SentSms } from '../helpers/sms-provider.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

const PUBLIC = 'http://localhost:3000';
const clock = new FakeClock();
let t: TestApp;
let fake: FakeSmsProvider;
let biz: Tenant;
let phoneSeq = 0;

before(async () => {
  fake = await new FakeSmsProvider().start();
  t = await startTestApp({ clock, env: { ...fake.env(), ...fake.whatsappEnv() } });
  biz = await whatsappTenant('Chez Sam');
});
after(async () => {
  await t.close();
  await fake.close();
});

/** A business branch with SMS off and WhatsApp on, so every paid message is WhatsApp's. */
async function whatsappTenant(name: string, plan: 'pro' | 'business' = 'business'): Promise<Tenant> {
  const tenant = await t.newTenant({ plan });
  const res = await t.request('PATCH', '/v1/branch', {
    key: tenant.liveKey,
    body: { name, reminder_count: 0, sms_enabled: false, whatsapp_enabled: true },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.whatsapp_enabled, true);
  return tenant;
}

/** A fresh number per test, so one test's STOP or open window never changes another's. */
const newPhone = (): string => `+1415666${String(1000 + ++phoneSeq).padStart(4, '0')}`;

async function readyTicket(key: string, phone: string): Promise<{ ticket: any; ready: any }> {
  const created = await t.request('POST', '/v1/tickets', { key, body: { customer_phone: phone } });
  assert.equal(created.status, 201, created.text);
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key });
  assert.equal(ready.status, 200, ready.text);
  return { ticket: created.body, ready: ready.body };
}

async function eventsOf(key: string, type: string, ticketId: string): Promise<any[]> {
  const res = await t.request('GET', `/v1/events?type=${type}&limit=100`, { key });
  return res.body.data.filter((e: any) => e.data.object.id === ticketId);
}

const attemptOf = async (key: string, ticketId: string): Promise<any> =>
  (await eventsOf(key, 'ticket.rung', ticketId))[0].data.ring.channels.find((c: any) => c.channel === 'whatsapp');
const getTicket = async (key: string, id: string): Promise<any> => (await t.request('GET', `/v1/tickets/${id}`, { key })).body;
const lastMessage = (): SentSms => fake.messages.at(-1)!;
const message = (from: string, body: string) => fake.whatsappInbound(t.url, PUBLIC, from, body);

/** The text inside a TwiML answer's <Message>, or null for an empty <Response/>. */
function twimlMessage(answer: { status: number; type: string | null; text: string }): string | null {
  assert.equal(answer.status, 200, answer.text);
  if (/<Response\/>$/.test(answer.text)) return null;
  const m = /<Response><Message>(.*)<\/Message><\/Response>$/s.exec(answer.text);
  assert.ok(m, answer.text);
  return m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

test('off by default: a business branch that did not turn WhatsApp on gets its SMS, never a WhatsApp message', async () => {
  const plain = await t.newTenant({ plan: 'business' });
  assert.equal((await t.request('GET', '/v1/branch', { key: plain.liveKey })).body.whatsapp_enabled, false);
  const { ready } = await readyTicket(plain.liveKey, newPhone());
  assert.equal(ready.channel_used, 'sms');
  assert.ok(!lastMessage().to.startsWith('whatsapp:'), 'the last message is the SMS');
  assert.ok(!fake.messages.some((m) => m.to.startsWith('whatsapp:')));
});

test('the ready outside the 24-hour window is the approved template, to the whatsapp: address, with its variables', async () => {
  const phone = newPhone();
  const { ticket, ready } = await readyTicket(biz.liveKey, phone);
  assert.deepEqual([ready.rang, ready.channel_used], [true, 'whatsapp']);
  const sent = lastMessage();
  assert.equal(sent.to, `whatsapp:${phone}`);
  assert.equal(sent.from, FakeSmsProvider.WHATSAPP_FROM);
  assert.equal(sent.contentSid, FakeSmsProvider.WHATSAPP_TEMPLATE);
  assert.deepEqual(sent.contentVariables, { 1: ticket.display_number, 2: 'Chez Sam', 3: ticket.url });
  assert.equal(sent.body, '', 'a template, not free text');
  assert.deepEqual(await attemptOf(biz.liveKey, ticket.id), { channel: 'whatsapp', delivered: true, detail: 'accepted (template)' });
});

test('within 24 hours of the customer writing, the ready is free text; after them, the template again', async () => {
  const phone = newPhone();
  await readyTicket(biz.liveKey, phone);
  assert.equal((await message(phone, 'hello?')).status, 200); // the customer writes: their window opens
  clock.advance(23 * 3600_000);
  const inside = await readyTicket(biz.liveKey, phone);
  const free = lastMessage();
  assert.equal(free.contentSid, undefined);
  assert.match(free.body, new RegExp(`Chez Sam: your order ${inside.ticket.display_number} is ready`));
  assert.ok(free.body.includes(inside.ticket.url));
  assert.deepEqual(await attemptOf(biz.liveKey, inside.ticket.id), { channel: 'whatsapp', delivered: true, detail: 'accepted' });
  clock.advance(2 * 3600_000); // 25 hours after the customer's messages
  await readyTicket(biz.liveKey, phone);
  assert.equal(lastMessage().contentSid, FakeSmsProvider.WHATSAPP_TEMPLATE);
});

test("receipts move the ticket's sms_status forward, as a text's do", async () => {
  const { ticket } = await readyTicket(biz.liveKey, newPhone());
  const sent = lastMessage();
  const ringId = (await eventsOf(biz.liveKey, 'ticket.rung', ticket.id))[0].data.ring.id;
  assert.equal(sent.statusCallback, `${PUBLIC}/sms/status/${ringId}`);
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'queued');
  assert.equal((await fake.receipt(t.url, sent, 'sent')).status, 204);
  assert.equal((await fake.receipt(t.url, sent, 'read')).status, 204, "WhatsApp's read receipt is accepted");
  assert.equal((await fake.receipt(t.url, sent, 'delivered')).status, 204);
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'delivered');
  await fake.receipt(t.url, sent, 'sent');
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'delivered', 'a late receipt never moves it back');
  assert.equal((await fake.receipt(t.url, sent, 'failed', { signature: 'bm9wZQ==' })).status, 403);
});

test('"1" is On my way and "5" a snooze, with via "whatsapp"; STOP stops every further message', async () => {
  const phone = newPhone();
  const { ticket } = await readyTicket(biz.liveKey, phone);
  assert.equal(twimlMessage(await message(phone, '1')), `Chez Sam: thanks, see you at the counter (${ticket.display_number}).`);
  const [ack] = await eventsOf(biz.liveKey, 'ticket.customer_acknowledged', ticket.id);
  assert.equal(ack.data.via, 'whatsapp');

  const other = await readyTicket(biz.liveKey, phone);
  assert.equal(
    twimlMessage(await message(phone, '5')),
    `Chez Sam: no rush. We will remind you about ${other.ticket.display_number} in 5 minutes.`,
  );
  const [snooze] = await eventsOf(biz.liveKey, 'ticket.customer_snoozed', other.ticket.id);
  assert.deepEqual([snooze.data.via, snooze.data.minutes], ['whatsapp', 5]);

  assert.equal(twimlMessage(await message(phone, 'STOP')), null);
  const before = fake.messages.length;
  const stopped = await readyTicket(biz.liveKey, phone);
  assert.equal(stopped.ready.channel_used, 'none');
  assert.equal(fake.messages.length, before, 'nothing sent after STOP');
  assert.equal((await attemptOf(biz.liveKey, stopped.ticket.id)).detail, 'opted out (the customer texted STOP)');
  await message(phone, 'START');
});

test('the reply budget: HELP is answered once an hour, and what was understood still happens', async () => {
  const phone = newPhone();
  const { ticket } = await readyTicket(biz.liveKey, phone);
  assert.match(twimlMessage(await message(phone, 'HELP')) ?? '', /Chez Sam/);
  assert.equal(twimlMessage(await message(phone, 'what?')), null, 'a second HELP within the hour is not answered');
  clock.advance(3600_000);
  assert.match(twimlMessage(await message(phone, 'HELP')) ?? '', new RegExp(ticket.display_number));
});

test('the business plan only: a pro branch with WhatsApp on sends nothing', async () => {
  const pro = await whatsappTenant('Pro Shop', 'pro');
  const before = fake.requests;
  const { ready } = await readyTicket(pro.liveKey, newPhone());
  assert.deepEqual([ready.rang, ready.channel_used], [false, 'none']);
  assert.equal(fake.requests, before);
});

test('test mode simulates WhatsApp: reported as reached, the provider is never called', async () => {
  const before = fake.requests;
  const { ticket, ready } = await readyTicket(biz.testKey, newPhone());
  assert.deepEqual([ready.rang, ready.channel_used], [true, 'whatsapp']);
  assert.equal(fake.requests, before);
  assert.equal((await attemptOf(biz.testKey, ticket.id)).detail, 'simulated (test mode)');
});

test('the customer page asks for a phone number with SMS off and WhatsApp on, and the ready goes to it by WhatsApp', async () => {
  const shop = await whatsappTenant('Phone shop');
  const asks = async (customerPage: Record<string, unknown>, more: Record<string, unknown> = {}) => {
    const res = await t.request('PATCH', '/v1/branch', { key: shop.liveKey, body: { customer_page: customerPage, ...more } });
    assert.equal(res.status, 200, res.text);
    t.app.live.data.branchChanged(shop.branchId); // the page reads settings through a short cache
  };
  await asks({ phone_entry: true });
  const created = await t.request('POST', '/v1/tickets', { key: shop.liveKey, body: {} });
  assert.equal(created.status, 201, created.text);
  const base = new URL(created.body.url).pathname;
  const html = await (await fetch(t.url + base)).text();
  assert.match(html, new RegExp(`<form method="post" action="${base}/phone" id="phone-form">`), 'the "text me" form is there');
  const phone = newPhone();
  const given = await fetch(`${t.url}${base}/phone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ phone }),
  });
  assert.equal(given.status, 200, await given.text());
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key: shop.liveKey });
  assert.equal(ready.body.channel_used, 'whatsapp', ready.text);
  assert.equal(lastMessage().to, `whatsapp:${phone}`);

  // With no paid channel on, the page stops asking: a number would never be used.
  await asks({}, { whatsapp_enabled: false });
  const other = await t.request('POST', '/v1/tickets', { key: shop.liveKey, body: {} });
  const otherBase = new URL(other.body.url).pathname;
  assert.ok(!(await (await fetch(t.url + otherBase)).text()).includes('id="phone-form"'), 'no form');
});

test('the ladder: a step may use the paid channels when only WhatsApp is on; the insights count it', async () => {
  const ladder = [{ after_seconds: 60, channels: ['push'], sms: 'fallback', call_out: false }];
  const res = await t.request('PATCH', '/v1/branch', { key: biz.liveKey, body: { escalation_ladder: ladder } });
  assert.equal(res.status, 200, res.text);
  const off = await t.request('PATCH', '/v1/branch', {
    key: biz.liveKey,
    body: { whatsapp_enabled: false, escalation_ladder: [{ ...ladder[0], sms: 'always' }] },
  });
  assert.equal(off.status, 422, 'with no paid channel on, a step cannot send one');
  assert.equal(off.body.errors?.[0]?.pointer, '/escalation_ladder/0/sms', off.text);
  const day = new Date(clock.now()).toISOString().slice(0, 10);
  const insights = await t.request('GET', `/v1/insights?from=${day}&to=${day}`, { key: biz.liveKey });
  assert.equal(insights.status, 200, insights.text);
  assert.ok(insights.body.figures.reached.whatsapp >= 1, JSON.stringify(insights.body.figures.reached));
});

test('bad input is an RFC 9457 problem: a switch that is not a boolean, an unsigned message', async () => {
  const bad = await t.request('PATCH', '/v1/branch', { key: biz.liveKey, body: { whatsapp_enabled: 'yes' } });
  assert.equal(bad.status, 422, bad.text);
  assert.match(bad.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(bad.body.errors?.[0]?.pointer, '/whatsapp_enabled', bad.text);
  const unsigned = await fake.whatsappInbound(t.url, PUBLIC, newPhone(), '1', { signature: null });
  assert.equal(unsigned.status, 403);
  assert.match(unsigned.type ?? '', /^application\/problem\+json/);
});

test('the configuration is checked at start: WHATSAPP_FROM needs the template and the SMS account', () => {
  const sms = fake.env();
  const problems = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
      return '';
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return err.message;
    }
  };
  assert.match(problems({ WHATSAPP_FROM: '+14155238886' }), /WHATSAPP_FROM needs SMS_ACCOUNT_SID and SMS_AUTH_TOKEN/);
  assert.match(problems({ ...sms, WHATSAPP_FROM: '+14155238886' }), /WHATSAPP_FROM needs WHATSAPP_READY_TEMPLATE/);
  assert.match(problems({ ...sms, WHATSAPP_FROM: '+14155238886', WHATSAPP_READY_TEMPLATE: 'ready' }), /must be a Content SID/);
  assert.match(problems({ ...sms, WHATSAPP_READY_TEMPLATE: FakeSmsProvider.WHATSAPP_TEMPLATE }), /without WHATSAPP_FROM/);
  const c = loadConfig({ ...sms, ...fake.whatsappEnv() });
  assert.deepEqual([c.whatsapp?.from, c.whatsapp?.readyTemplate], [FakeSmsProvider.WHATSAPP_FROM, FakeSmsProvider.WHATSAPP_TEMPLATE]);
  assert.equal(loadConfig({ ...sms }).whatsapp, null, 'off unless configured');
});
