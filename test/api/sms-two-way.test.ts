// Two-way SMS and delivery receipts (decision 0026), against a fake Twilio-compatible provider
// that sends readybell the customer's texts and the messages' status callbacks, signed with the
// `twilio` package's own helper. A fake clock drives the snooze's ring.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeSmsProvider } from '../helpers/sms-provider.ts';
import { latestSmsOfTicket } from '../../src/store/sms-messages.ts';

const PUBLIC = 'http://localhost:3000';
const clock = new FakeClock();
const logLines: string[] = [];
let t: TestApp;
let sms: FakeSmsProvider;
let biz: Tenant;
let phoneSeq = 0;

before(async () => {
  sms = await new FakeSmsProvider().start();
  t = await startTestApp({
    clock,
    env: { ...sms.env(), LOG_LEVEL: 'trace' },
    logDestination: { write: (line: string) => void logLines.push(line) },
  });
  biz = await businessTenant('Chez Sam');
});
after(async () => {
  await t.close();
  await sms.close();
});

async function businessTenant(name: string, language = 'en'): Promise<Tenant> {
  const tenant = await t.newTenant({ plan: 'business' });
  // Branch settings are shared by both modes and changed with the live key.
  const res = await t.request('PATCH', '/v1/branch', {
    key: tenant.liveKey,
    body: { name, reminder_count: 0, customer_page: { language } },
  });
  assert.equal(res.status, 200, res.text);
  return tenant;
}

/** A fresh number per test, so one test's STOP never silences another's. */
const newPhone = (): string => `+1415555${String(1000 + ++phoneSeq).padStart(4, '0')}`;

async function textedTicket(key: string, phone: string): Promise<any> {
  const created = await t.request('POST', '/v1/tickets', { key, body: { customer_phone: phone } });
  assert.equal(created.status, 201, created.text);
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key });
  assert.equal(ready.status, 200, ready.text);
  assert.equal(ready.body.channel_used, 'sms');
  return created.body;
}

const getTicket = async (key: string, id: string): Promise<any> => (await t.request('GET', `/v1/tickets/${id}`, { key })).body;
const lastText = () => sms.messages.at(-1)!;
const inbound = (from: string, body: string, opts?: Parameters<FakeSmsProvider['inbound']>[4]) =>
  sms.inbound(t.url, PUBLIC, from, body, opts);

async function eventsOf(key: string, type: string, ticketId: string): Promise<any[]> {
  const res = await t.request('GET', `/v1/events?type=${type}&limit=100`, { key });
  return res.body.data.filter((e: any) => e.data.object.id === ticketId);
}

/** The text inside a TwiML answer's <Message>, or null for an empty <Response/>. */
function twimlMessage(answer: { status: number; type: string | null; text: string }): string | null {
  assert.equal(answer.status, 200, answer.text);
  assert.match(answer.type ?? '', /^text\/xml/);
  if (/<Response\/>$/.test(answer.text)) return null;
  const m = /<Response><Message>(.*)<\/Message><\/Response>$/s.exec(answer.text);
  assert.ok(m, answer.text);
  return m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

async function at(ms: number): Promise<void> {
  clock.advance(ms);
  while ((await t.app.runner.runOnce()) > 0) {
    /* jobs that became due while others ran */
  }
}

test("the send names the status callback; receipts move the ticket's sms_status forward only, and GET /v1/tickets shows it", async () => {
  const ticket = await textedTicket(biz.liveKey, newPhone());
  const text = lastText();
  const ringId = (await eventsOf(biz.liveKey, 'ticket.rung', ticket.id))[0].data.ring.id;
  assert.equal(text.statusCallback, `${PUBLIC}/sms/status/${ringId}`);
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'queued', 'the provider took it');

  assert.equal((await sms.receipt(t.url, text, 'sent')).status, 204);
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'sent');
  assert.equal((await sms.receipt(t.url, text, 'delivered')).status, 204);
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'delivered');
  // Callbacks come out of order: a late "sent" or "queued" never moves it back, nor does a second final status.
  await sms.receipt(t.url, text, 'sent');
  await sms.receipt(t.url, text, 'queued');
  await sms.receipt(t.url, text, 'failed', { errorCode: '30003' });
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'delivered');
  const listed = await t.request('GET', `/v1/tickets?status=ready&limit=100`, { key: biz.liveKey });
  assert.equal(listed.body.data.find((x: any) => x.id === ticket.id).sms_status, 'delivered');
  // A status that says nothing about delivery is accepted and ignored.
  assert.equal((await sms.receipt(t.url, text, 'receiving')).status, 204);
});

test('a failed text is recorded for the escalation ladder, and the ticket says so', async () => {
  const ticket = await textedTicket(biz.liveKey, newPhone());
  await sms.receipt(t.url, lastText(), 'sent');
  await sms.receipt(t.url, lastText(), 'undelivered', { errorCode: '30003' });
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'undelivered');
  const latest = await latestSmsOfTicket(t.app.services.db, ticket.id);
  assert.deepEqual(
    [latest?.status, latest?.failed, latest?.errorCode, latest?.seq, latest?.providerSid],
    ['undelivered', true, '30003', 1, lastText().sid],
  );
});

test('a text the provider refuses is failed at once, with its error code', async () => {
  const created = await t.request('POST', '/v1/tickets', { key: biz.liveKey, body: { customer_phone: newPhone() } });
  sms.reply = 400;
  try {
    const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key: biz.liveKey });
    assert.equal(ready.body.channel_used, 'none');
  } finally {
    sms.reply = 201;
  }
  assert.equal((await getTicket(biz.liveKey, created.body.id)).sms_status, 'failed');
  const latest = await latestSmsOfTicket(t.app.services.db, created.body.id);
  assert.deepEqual([latest?.failed, latest?.errorCode], [true, '30400']);
});

test('"1" texted back is "On my way": the same event as the page\'s button, with via "sms", and a thank-you text', async () => {
  const phone = newPhone();
  const ticket = await textedTicket(biz.liveKey, phone);
  const answer = await inbound(phone, '1');
  assert.equal(twimlMessage(answer), `Chez Sam: thanks, see you at the counter (${ticket.display_number}).`);
  const after = await getTicket(biz.liveKey, ticket.id);
  assert.equal(after.customer.acknowledged_at, new Date(clock.now()).toISOString());
  const [event] = await eventsOf(biz.liveKey, 'ticket.customer_acknowledged', ticket.id);
  assert.equal(event.data.via, 'sms');
  assert.equal(event.data.object.customer.acknowledged_at, after.customer.acknowledged_at);

  // The page's button: the same event, via "page".
  const other = await textedTicket(biz.liveKey, newPhone());
  const page = await fetch(`${other.url.replace(PUBLIC, t.url)}/acknowledge`, { method: 'POST', headers: { accept: 'application/json' } });
  assert.equal(page.status, 200);
  assert.equal((await eventsOf(biz.liveKey, 'ticket.customer_acknowledged', other.id))[0].data.via, 'page');
});

test('"5" snoozes five minutes, and the snooze\'s end rings (and texts) again', async () => {
  const phone = newPhone();
  const ticket = await textedTicket(biz.liveKey, phone);
  const texts = sms.messages.length;
  assert.equal(
    twimlMessage(await inbound(phone, 'later')),
    `Chez Sam: no rush. We will remind you about ${ticket.display_number} in 5 minutes.`,
  );
  const [event] = await eventsOf(biz.liveKey, 'ticket.customer_snoozed', ticket.id);
  assert.deepEqual(
    [event.data.via, event.data.minutes, event.data.snoozed_until],
    ['sms', 5, new Date(clock.now() + 5 * 60_000).toISOString()],
  );
  await at(5 * 60_000 - 1);
  assert.equal(sms.messages.length, texts, 'not before the snooze ends');
  await at(1);
  const rungs = await eventsOf(biz.liveKey, 'ticket.rung', ticket.id);
  assert.equal(rungs[0].data.ring.reason, 'snooze_end');
  assert.equal(sms.messages.length, texts + 1);
  assert.equal(lastText().to, phone);
  assert.equal((await getTicket(biz.liveKey, ticket.id)).sms_status, 'queued', "the new text's status, not the first one's");
});

test("STOP opts the number out of every further text until START; the carriers' keywords get no text back from here", async () => {
  const phone = newPhone();
  const ticket = await textedTicket(biz.liveKey, phone);
  assert.equal(twimlMessage(await inbound(phone, 'STOP')), null);
  const texts = sms.requests;
  clock.advance(11_000);
  const ring = await t.request('POST', `/v1/tickets/${ticket.id}/ring`, { key: biz.liveKey });
  assert.equal(ring.status, 200, ring.text);
  assert.equal(ring.body.channel_used, 'none');
  assert.equal(sms.requests, texts, 'no request to the provider');
  const rung = (await eventsOf(biz.liveKey, 'ticket.rung', ticket.id))[0];
  assert.deepEqual(
    rung.data.ring.channels.find((c: any) => c.channel === 'sms'),
    { channel: 'sms', delivered: false, detail: 'opted out (the customer texted STOP)' },
  );
  // Another ticket, another branch: the number stays opted out (one sender number serves them all).
  const elsewhere = await businessTenant('Other shop');
  const second = await t.request('POST', '/v1/tickets', { key: elsewhere.liveKey, body: { customer_phone: phone } });
  assert.equal((await t.request('POST', `/v1/tickets/${second.body.id}/ready`, { key: elsewhere.liveKey })).body.channel_used, 'none');
  assert.equal(sms.requests, texts);

  assert.equal(twimlMessage(await inbound(phone, 'start')), null);
  clock.advance(11_000);
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/ring`, { key: biz.liveKey })).body.channel_used, 'sms');
  assert.equal(sms.requests, texts + 1);
});

test("HELP, and anything not understood, is answered with the shop's name and what to reply (once an hour); nothing changes", async () => {
  const phone = newPhone();
  const ticket = await textedTicket(biz.liveKey, phone);
  const help = `Chez Sam: alerts for order ${ticket.display_number}. Reply 1 when you are on your way, 5 for 5 more minutes, STOP to end texts.`;
  assert.equal(twimlMessage(await inbound(phone, 'HELP')), help);
  assert.equal(twimlMessage(await inbound(phone, 'where is my food??')), null, 'the same answer is not billed twice within the hour');
  clock.advance(3600_000);
  assert.equal(twimlMessage(await inbound(phone, 'where is my food??')), help);
  const after = await getTicket(biz.liveKey, ticket.id);
  assert.deepEqual([after.customer.acknowledged_at, after.customer.snoozed_until], [null, null]);
});

test("replies in the branch's language, and a reply from a number with no open texted ticket", async () => {
  const fr = await businessTenant('Chez Paul', 'fr');
  const phone = newPhone();
  const ticket = await textedTicket(fr.liveKey, phone);
  assert.equal(
    twimlMessage(await inbound(phone, 'J’arrive !')),
    `Chez Paul : merci, à tout de suite au comptoir (${ticket.display_number}).`,
  );
  assert.equal(twimlMessage(await inbound(newPhone(), '1')), 'No order is waiting for this number. Reply STOP to end texts.');
  // Closed: no longer answered for.
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/collect`, { key: fr.liveKey })).status, 200);
  assert.equal(twimlMessage(await inbound(phone, '5')), 'No order is waiting for this number. Reply STOP to end texts.');
  assert.equal((await eventsOf(fr.liveKey, 'ticket.customer_snoozed', ticket.id)).length, 0);
});

test('a reply answers the ticket texted last at that number', async () => {
  const phone = newPhone();
  const other = await businessTenant('First shop');
  const older = await textedTicket(other.liveKey, phone);
  clock.advance(1000);
  const newer = await textedTicket(biz.liveKey, phone);
  await inbound(phone, 'ok');
  assert.notEqual((await getTicket(biz.liveKey, newer.id)).customer.acknowledged_at, null);
  assert.equal((await getTicket(other.liveKey, older.id)).customer.acknowledged_at, null);
});

test('a message the provider delivers twice acts once', async () => {
  const phone = newPhone();
  const ticket = await textedTicket(biz.liveKey, phone);
  const first = await inbound(phone, '5', { messageSid: 'SMrepeated0000000000000000000000001' });
  clock.advance(1000);
  const again = await inbound(phone, '5', { messageSid: 'SMrepeated0000000000000000000000001' });
  assert.notEqual(twimlMessage(first), null);
  assert.equal(twimlMessage(again), null, 'no second text back');
  assert.equal((await eventsOf(biz.liveKey, 'ticket.customer_snoozed', ticket.id)).length, 1);
});

test('unsigned or wrongly signed webhooks are 403 problems and change nothing', async () => {
  const phone = newPhone();
  const ticket = await textedTicket(biz.liveKey, phone);
  const text = lastText();
  const refused = [
    await inbound(phone, '1', { signature: null }),
    await inbound(phone, '1', { signature: 'bm90IGEgc2lnbmF0dXJl' }),
    await inbound(phone, '1', { token: 'another-account-token' }),
    await inbound(phone, 'STOP', { signature: null }),
    // Signed for another URL: a status for another ring, posted to this one's.
    await sms.callBack(
      t.url,
      text.statusCallback!,
      { MessageStatus: 'failed', MessageSid: text.sid },
      {
        signature: (await import('twilio/lib/webhooks/webhooks.js')).getExpectedTwilioSignature(
          FakeSmsProvider.TOKEN,
          `${PUBLIC}/sms/status/rng_00000000000000000000000000`,
          { MessageStatus: 'failed', MessageSid: text.sid },
        ),
      },
    ),
    await sms.receipt(t.url, text, 'failed', { signature: null }),
  ];
  for (const answer of refused) {
    assert.equal(answer.status, 403, answer.text);
    assert.match(answer.type ?? '', /^application\/problem\+json/);
    assert.equal(JSON.parse(answer.text).code, 'forbidden');
  }
  // A body changed after signing.
  const params = { Body: '5', From: phone, MessageSid: 'SMtampered', AccountSid: FakeSmsProvider.SID };
  const { getExpectedTwilioSignature } = await import('twilio/lib/webhooks/webhooks.js');
  const signature = getExpectedTwilioSignature(FakeSmsProvider.TOKEN, `${PUBLIC}/sms/inbound`, { ...params, Body: 'HELP' });
  assert.equal((await sms.callBack(t.url, `${PUBLIC}/sms/inbound`, params, { signature })).status, 403);

  const after = await getTicket(biz.liveKey, ticket.id);
  assert.deepEqual([after.customer.acknowledged_at, after.customer.snoozed_until, after.sms_status], [null, null, 'queued']);
  clock.advance(11_000);
  assert.equal(
    (await t.request('POST', `/v1/tickets/${ticket.id}/ring`, { key: biz.liveKey })).body.channel_used,
    'sms',
    'the unsigned STOP opted nobody out',
  );
});

test('test mode: the simulated text is delivered at once, and the helper replies as the customer would', async () => {
  const phone = newPhone();
  const texts = sms.requests;
  const ticket = await textedTicket(biz.testKey, phone);
  assert.equal(sms.requests, texts, 'test mode never calls the provider');
  assert.equal((await getTicket(biz.testKey, ticket.id)).sms_status, 'delivered');
  const reply = (body: string, key = biz.testKey, id = ticket.id) =>
    t.request('POST', `/v1/test_helpers/tickets/${id}/sms_reply`, { key, body: { body } });

  const help = await reply('help');
  assert.equal(help.status, 200, help.text);
  assert.deepEqual([help.body.object, help.body.understood_as, help.body.ticket.id], ['sms_reply', 'help', ticket.id]);
  assert.match(help.body.reply, /^Chez Sam: alerts for order/);

  const ack = await reply('On my way');
  assert.deepEqual(
    [ack.body.understood_as, ack.body.reply],
    ['acknowledge', `Chez Sam: thanks, see you at the counter (${ticket.display_number}).`],
  );
  assert.notEqual(ack.body.ticket.customer.acknowledged_at, null);
  assert.equal((await eventsOf(biz.testKey, 'ticket.customer_acknowledged', ticket.id))[0].data.via, 'sms');

  // STOP in test mode silences test mode's texts to the number, and nothing in live mode.
  assert.deepEqual([(await reply('STOP')).body.understood_as, (await reply('STOP')).body.reply], ['stop', null]);
  clock.advance(11_000);
  const rung = await t.request('POST', `/v1/tickets/${ticket.id}/ring`, { key: biz.testKey });
  assert.equal(rung.body.channel_used, 'none');
  const live = await textedTicket(biz.liveKey, phone);
  assert.equal(lastText().to, phone, 'live mode still texts the number');
  assert.equal((await getTicket(biz.liveKey, live.id)).sms_status, 'queued');

  // Refusals: a live key, a ticket never texted, bad input.
  assert.equal((await reply('1', biz.liveKey, live.id)).status, 403);
  const untexted = await t.request('POST', '/v1/tickets', { key: biz.testKey, body: {} });
  const conflict = await reply('1', biz.testKey, untexted.body.id);
  assert.deepEqual([conflict.status, conflict.body.code], [409, 'conflict']);
  assert.equal((await reply('1', biz.testKey, 'tk_nope')).status, 404);
  const stranger = await t.newTenant({ plan: 'business' });
  assert.equal((await reply('1', stranger.testKey, ticket.id)).status, 404, "another branch's ticket does not exist for it");
  const empty = await t.request('POST', `/v1/test_helpers/tickets/${ticket.id}/sms_reply`, { key: biz.testKey, body: { body: '' } });
  assert.deepEqual([empty.status, empty.body.code], [422, 'validation-failed']);
});

test('webhooks of an unconfigured provider are refused', async () => {
  const bare = await startTestApp({ clock });
  try {
    const answer = await sms.inbound(bare.url, PUBLIC, newPhone(), '1');
    assert.equal(answer.status, 403);
    assert.equal(JSON.parse(answer.text).code, 'forbidden');
  } finally {
    await bare.close();
  }
});

test('no phone number and no message text in any log line', () => {
  const joined = logLines.join('\n');
  assert.ok(joined.includes('"understood_as"'), 'the replies were logged');
  assert.ok(joined.includes('"sms_status"'), 'the receipts were logged');
  const numbers = new Set(sms.messages.map((m) => m.to));
  assert.ok(numbers.size > 5);
  for (const number of numbers) {
    for (const form of [number, number.slice(1), encodeURIComponent(number)]) assert.ok(!joined.includes(form), `a log line holds ${form}`);
  }
  for (const text of ['where is my food', 'J’arrive']) assert.ok(!joined.includes(text));
});
