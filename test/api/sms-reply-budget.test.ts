// What texts back to customers' SMS may cost (issue 25 item 3, decision 0046): HELP is answered
// once per number per hour, "no order is waiting" once per number, a number texting like an
// auto-responder gets no answers at all, and /metrics counts the answers sent and held back. The
// fake Twilio-compatible provider signs the inbound texts; a fake clock stands for the hours.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeSmsProvider } from '../helpers/sms-provider.ts';

const PUBLIC = 'http://localhost:3000';
const clock = new FakeClock();
let t: TestApp;
let sms: FakeSmsProvider;
let biz: Tenant;
let phoneSeq = 0;

before(async () => {
  sms = await new FakeSmsProvider().start();
  t = await startTestApp({ clock, env: { ...sms.env(), METRICS_PORT: '0' } });
  biz = await t.newTenant({ plan: 'business' });
  const res = await t.request('PATCH', '/v1/branch', { key: biz.liveKey, body: { name: 'Chez Sam', reminder_count: 0 } });
  assert.equal(res.status, 200, res.text);
});
after(async () => {
  await t.close();
  await sms.close();
});

const newPhone = (): string => `+1415556${String(1000 + ++phoneSeq).padStart(4, '0')}`;

async function textedTicket(phone: string): Promise<any> {
  const created = await t.request('POST', '/v1/tickets', { key: biz.liveKey, body: { customer_phone: phone } });
  assert.equal(created.status, 201, created.text);
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key: biz.liveKey });
  assert.equal(ready.body.channel_used, 'sms', ready.text);
  return created.body;
}

/** The text readybell answers with (TwiML <Message>), or null for none. */
async function answer(from: string, body: string): Promise<string | null> {
  const r = await sms.inbound(t.url, PUBLIC, from, body);
  assert.equal(r.status, 200, r.text);
  return /<Message>(.*)<\/Message>/s.exec(r.text)?.[1] ?? null;
}

async function answers(from: string, body: string, n: number, everyMs = 0): Promise<number> {
  let sent = 0;
  for (let i = 0; i < n; i++) {
    if ((await answer(from, body)) !== null) sent++;
    clock.advance(everyMs);
  }
  return sent;
}

async function replies(): Promise<Record<string, number>> {
  const text = await t.app.services.metrics!.registry.metrics();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^readybell_sms_replies_total\{answer="(\w+)",outcome="(\w+)"\} (\d+)$/gm))
    out[`${m[1]} ${m[2]}`] = Number(m[3]);
  return out;
}

const delta = (before: Record<string, number>, now: Record<string, number>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(now)
      .map(([k, v]) => [k, v - (before[k] ?? 0)])
      .filter(([, v]) => v !== 0),
  );

test('200 HELP texts from one number with an open order get one answer an hour; the metrics count what was sent and held back', async () => {
  const phone = newPhone();
  await textedTicket(phone);
  const was = await replies();
  assert.equal(await answers(phone, 'HELP', 200), 1);
  assert.deepEqual(delta(was, await replies()), { 'help sent': 1, 'help capped': 9, 'help loop': 190 });
  // An hour later a person asking again is answered again.
  clock.advance(3600_000);
  assert.equal(await answers(phone, 'what?', 3), 1);
});

test('texts from a number with no open order: the first is answered, the next 99 are not', async () => {
  const stranger = newPhone();
  assert.equal(await answers(stranger, 'HELP', 100, 60_000), 1);
  assert.equal(await answers(stranger, '1', 1), 0, 'nor later');
  assert.equal(await answers(newPhone(), 'HELP', 1), 1, 'another number gets its one answer');
});

test('an auto-responder answering every text is no longer answered after a few; the customer\'s "On my way" still counts', async () => {
  const phone = newPhone();
  const ticket = await textedTicket(phone);
  // Its every answer to us is "OK", which we would confirm, which it would answer, ...
  let answered = 0;
  let text: string | null = 'first';
  for (let i = 0; i < 100 && text !== null; i++) {
    text = await answer(phone, 'OK');
    if (text !== null) answered++;
    clock.advance(2000);
  }
  assert.equal(answered, 10, 'ten confirmations, then silence: the loop is broken');
  const now = (await t.request('GET', `/v1/tickets/${ticket.id}`, { key: biz.liveKey })).body;
  assert.notEqual(now.customer.acknowledged_at, null);
});

test('a customer who texts HELP, then 1, then 5 gets each answer', async () => {
  const phone = newPhone();
  await textedTicket(phone);
  assert.match((await answer(phone, 'HELP')) ?? '', /Reply 1 when you are on your way/);
  assert.match((await answer(phone, '1')) ?? '', /thanks, see you at the counter/);
  assert.match((await answer(phone, '5')) ?? '', /We will remind you/);
});

test('100 numbers without an order get 20 answers an hour between them, and the numbers with orders are answered as before', async () => {
  clock.advance(3_600_000);
  const before = await replies();
  let sent = 0;
  for (let i = 0; i < 100; i++) if ((await answer(newPhone(), 'HELP')) !== null) sent++;
  assert.equal(sent, 20, 'one line answers 20 unknown numbers an hour');
  assert.deepEqual(delta(before, await replies()), { 'no_order sent': 20, 'no_order capped': 80 });
  const customer = newPhone();
  await textedTicket(customer);
  assert.notEqual(await answer(customer, 'HELP'), null, 'a customer with an order is still answered');
  clock.advance(3_600_000);
  assert.notEqual(await answer(newPhone(), 'HELP'), null, 'an hour later, unknown numbers are answered again');
});
