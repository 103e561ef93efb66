// A phone number typed on the customer page for SMS fallback (decision 0023): only where a
// business-plan branch asks for it (customer_page.phone_entry), read as E.164, kept for this
// ticket's texts only, erased when the ticket closes, shown back only masked, and never written
// whole into an answer, a page or a log. With and without script, rate-limited like the page's
// other buttons. SMS goes to a local fake of a Twilio-compatible provider.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeSmsProvider } from '../helpers/sms-provider.ts';
import { openPage, pathOf } from '../helpers/live.ts';

let t: TestApp;
let sms: FakeSmsProvider;
let biz: Tenant;
const logLines: string[] = [];

before(async () => {
  sms = await new FakeSmsProvider().start();
  t = await startTestApp({
    env: { ...sms.env(), LOG_LEVEL: 'trace' },
    logDestination: { write: (line: string) => void logLines.push(line) },
  });
  biz = await t.newTenant({ plan: 'business' });
});
after(async () => {
  await t?.close();
  await sms?.close();
});

const patch = (key: string, customerPage: Record<string, unknown>) =>
  t.request('PATCH', '/v1/branch', { key, body: { customer_page: customerPage } });

async function setting(tenant: Tenant, customerPage: Record<string, unknown>): Promise<void> {
  const res = await patch(tenant.liveKey, customerPage);
  assert.equal(res.status, 200, res.text);
  // The page reads branch settings through a cache of a few seconds.
  t.app.live.data.branchChanged(tenant.branchId);
}

async function ticketOf(key: string): Promise<{ id: string; url: string; base: string; display_number: string }> {
  const res = await t.request('POST', '/v1/tickets', { key, body: {} });
  assert.equal(res.status, 201, res.text);
  return { ...res.body, base: pathOf(res.body.url) };
}

const page = async (path: string, lang = 'en') => (await fetch(t.url + path, { headers: { 'accept-language': lang } })).text();
const postForm = (base: string, phone: string) =>
  fetch(`${t.url}${base}/phone`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ phone }).toString(),
    redirect: 'manual',
  });
const postJson = (base: string, body: unknown, lang = 'en') =>
  fetch(`${t.url}${base}/phone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-language': lang },
    body: JSON.stringify(body),
  });
const storedPhone = async (id: string) =>
  (await t.app.services.db.query<{ p: string | null }>('SELECT customer_phone AS p FROM tickets WHERE id = $1', [id]))[0]!.p;
const ready = async (key: string, id: string) => (await t.request('POST', `/v1/tickets/${id}/ready`, { key })).body;

test('off by default: the page has no form, and a number posted anyway is refused and kept nowhere', async () => {
  const branch = await t.request('GET', '/v1/branch', { key: biz.liveKey });
  assert.deepEqual([branch.body.customer_page.phone_entry, branch.body.customer_page.phone_country], [false, null]);
  const tk = await ticketOf(biz.liveKey);
  const html = await page(tk.base);
  assert.ok(!html.includes('/phone"'), 'no "text me" form');
  assert.ok(!html.includes('id="phonebox"'));
  const json = await postJson(tk.base, { phone: '+447400123456' });
  assert.equal(json.status, 403);
  assert.match(json.headers.get('content-type') ?? '', /application\/problem\+json/);
  const form = await postForm(tk.base, '+447400123456');
  assert.equal(form.status, 303, 'without script: back to the page, which has no form');
  assert.equal(await storedPhone(tk.id), null);
  const before = sms.requests;
  assert.equal((await ready(biz.liveKey, tk.id)).channel_used, 'none');
  assert.equal(sms.requests, before, 'nobody is texted');
});

test('only a business plan may turn it on (403 plan-required); the country is a real one; any plan may turn it off', async () => {
  const pro = await patch(t.tenant.liveKey, { phone_entry: true });
  assert.equal(pro.status, 403);
  assert.equal(pro.body.code, 'plan-required');
  assert.equal((await t.request('GET', '/v1/branch', { key: t.tenant.liveKey })).body.customer_page.phone_entry, false);
  assert.equal((await patch(t.tenant.liveKey, { phone_entry: false })).status, 200);

  const other = await t.newTenant({ plan: 'business' });
  const on = await patch(other.liveKey, { phone_entry: true, phone_country: 'gb' });
  assert.equal(on.status, 200, on.text);
  assert.deepEqual([on.body.customer_page.phone_entry, on.body.customer_page.phone_country], [true, 'GB']);
  for (const country of ['XX', 'G1', 'GBR']) {
    const bad = await patch(other.liveKey, { phone_country: country });
    assert.equal(bad.status, 422, country);
    assert.equal(bad.body.errors[0].pointer, '/customer_page/phone_country', country);
  }
  assert.equal((await patch(other.liveKey, { phone_country: null })).body.customer_page.phone_country, null);
});

test('on, without script: a valid number is kept, shown back masked, and an SMS fallback ring reaches it', async () => {
  await setting(biz, { phone_entry: true, phone_country: null });
  const tk = await ticketOf(biz.liveKey);
  const html = await page(tk.base);
  assert.match(html, new RegExp(`<form method="post" action="${tk.base}/phone" id="phone-form">`));
  assert.match(html, /<input id="phone" name="phone" type="tel" autocomplete="tel"/);
  assert.match(html, /Start with \+ and your country code/, 'no branch country: the page says to type + and the country code');

  const res = await postForm(tk.base, '+44\u00a07400\u00a0123456');
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), tk.base);
  assert.equal(await storedPhone(tk.id), '+447400123456', 'stored as E.164');
  const after = await page(tk.base);
  assert.match(after, /Texts for this order go to \+44\u00a0••••\u00a0•••456\./);
  for (const whole of ['+447400123456', '7400123456', '7400 123456']) assert.ok(!after.includes(whole), `the page shows ${whole}`);

  const got = (await t.request('GET', `/v1/tickets/${tk.id}`, { key: biz.liveKey })).body;
  assert.equal(got.customer.notifications, 'sms');
  const rung = await ready(biz.liveKey, tk.id);
  assert.deepEqual([rung.rang, rung.channel_used], [true, 'sms']);
  assert.equal(sms.messages.at(-1)!.to, '+447400123456');
  assert.ok(sms.messages.at(-1)!.body.includes(tk.display_number));
});

test("on, with script: the answer is the page view with the number masked; a national number is read in the branch's country", async () => {
  await setting(biz, { phone_entry: true, phone_country: 'GB' });
  const tk = await ticketOf(biz.liveKey);
  assert.ok(!(await page(tk.base)).includes('Start with +'), 'a branch country: national numbers are fine');
  const live = await openPage(t, tk.url, { ack: false });
  assert.deepEqual([live.snapshot.phone_entry, live.snapshot.phone_text], [true, null]);
  const res = await postJson(tk.base, { phone: '07400 123457' });
  assert.equal(res.status, 200);
  const view = await res.json();
  assert.equal(view.phone_text, 'Texts for this order go to +44\u00a0••••\u00a0•••457.');
  const pushed = await live.next('snapshot', (v) => v.phone_text !== null);
  assert.equal(pushed.data.phone_text, view.phone_text, 'an open page learns it live');
  live.close();
  assert.equal(await storedPhone(tk.id), '+447400123457');
  const events = (await t.request('GET', '/v1/events?type=ticket.customer_subscribed', { key: biz.liveKey })).body.data;
  const event = events.find((e: any) => e.data.object.id === tk.id);
  assert.equal(event.data.channel, 'sms');
  await ready(biz.liveKey, tk.id);
  assert.equal(sms.messages.at(-1)!.to, '+447400123457');
  await setting(biz, { phone_country: null });
});

test('a number that cannot be texted gets a clear error on the page (and in the problem), and nothing is kept', async () => {
  await setting(biz, { phone_entry: true, phone_country: null });
  const tk = await ticketOf(biz.liveKey);
  const cases: Array<[string, string, RegExp]> = [
    ['call me maybe', 'invalid', /This is not a valid mobile number/],
    ['07400 123456', 'needs-country-code', /Please start the number with \+ and your country code/],
    ['+44\u00a0909\u00a0879\u00a00000', 'not-mobile', /This number cannot receive texts/],
    ['+44\u00a020\u00a07946\u00a00958', 'not-mobile', /This number cannot receive texts/],
  ];
  for (const [typed, problem, message] of cases) {
    const res = await postForm(tk.base, typed);
    assert.equal(res.status, 303, typed);
    const location = res.headers.get('location')!;
    assert.equal(location, `${tk.base}?phone_error=${problem}#phone`, typed);
    const html = await page(location.replace(/#.*/, ''));
    assert.match(html, message, typed);
    assert.match(html, /<input id="phone"[^>]* aria-invalid="true">/, typed);
    assert.ok(!html.includes(typed), `the page repeats ${typed}`);
  }
  const fr = await postJson(tk.base, { phone: '+12' }, 'fr');
  assert.equal(fr.status, 422);
  assert.match(fr.headers.get('content-type') ?? '', /application\/problem\+json/);
  const problem = await fr.json();
  assert.equal(problem.detail, 'Ce numéro de mobile n’est pas valide. Veuillez le vérifier.', "said in the page's language");
  assert.deepEqual([problem.errors[0].pointer, problem.phone_problem], ['/phone', 'invalid']);
  for (const body of [{}, { phone: 447400123456 }, { phone: '+44'.padEnd(60, '7') }]) {
    assert.equal((await postJson(tk.base, body)).status, 422, JSON.stringify(body));
  }
  assert.equal(await storedPhone(tk.id), null);
  assert.equal((await ready(biz.liveKey, tk.id)).channel_used, 'none');
});

test('erased when the ticket is collected; a closed ticket takes no number', async () => {
  await setting(biz, { phone_entry: true });
  const tk = await ticketOf(biz.liveKey);
  assert.equal((await postJson(tk.base, { phone: '+33\u00a06\u00a012\u00a034\u00a056\u00a078' })).status, 200);
  assert.equal(await storedPhone(tk.id), '+33612345678');
  assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/collect`, { key: biz.liveKey })).status, 200);
  assert.equal(await storedPhone(tk.id), null);
  const html = await page(tk.base);
  assert.ok(!html.includes('Texts for this order go to'), 'nothing of the number is left to show');
  assert.ok(!html.includes('phone-form'), 'a closed ticket offers no form');
  assert.equal((await postJson(tk.base, { phone: '+33\u00a06\u00a012\u00a034\u00a056\u00a078' })).status, 409);
  assert.equal(await storedPhone(tk.id), null);
});

test("a token sets its own ticket only: another branch's setting does not carry over, and a test ticket's number stays in test mode", async () => {
  await setting(biz, { phone_entry: true });
  const other = await t.newTenant({ plan: 'business' });
  const theirs = await ticketOf(other.liveKey);
  assert.equal((await postJson(theirs.base, { phone: '+447400123460' })).status, 403, 'their branch did not ask for numbers');
  assert.equal(await storedPhone(theirs.id), null);

  const liveTicket = await ticketOf(biz.liveKey);
  const testTicket = await ticketOf(biz.testKey);
  assert.equal((await postJson(testTicket.base, { phone: '+447400123461' })).status, 200);
  assert.deepEqual([await storedPhone(testTicket.id), await storedPhone(liveTicket.id)], ['+447400123461', null]);
  const before = sms.requests;
  const simulated = (await t.request('POST', `/v1/tickets/${testTicket.id}/ready`, { key: biz.testKey })).body;
  assert.deepEqual([simulated.rang, simulated.channel_used], [true, 'sms'], 'test mode simulates the text');
  assert.equal(sms.requests, before, 'and pays no provider');
  assert.equal((await ready(biz.liveKey, liveTicket.id)).channel_used, 'none', 'the live ticket has no number');
  assert.equal(sms.requests, before);
});

test('a branch whose account left the business plan takes no more numbers', async () => {
  const down = await t.newTenant({ plan: 'business' });
  await setting(down, { phone_entry: true });
  const tk = await ticketOf(down.liveKey);
  await t.app.services.db.write((tx) => tx.run("UPDATE accounts SET plan = 'pro' WHERE id = $1", [down.accountId]));
  assert.equal((await postJson(tk.base, { phone: '+447400123462' })).status, 403);
  assert.equal(await storedPhone(tk.id), null);
});

test("rate-limited like the page's other buttons: 429 with Retry-After, other links unaffected", async () => {
  await setting(biz, { phone_entry: true });
  const tk = await ticketOf(biz.liveKey);
  const other = await ticketOf(biz.liveKey);
  let last: Response | null = null;
  for (let i = 0; i < 130; i++) {
    last = await postJson(tk.base, { phone: 'nope' });
    await last.arrayBuffer();
    if (last.status === 429) break;
  }
  assert.equal(last!.status, 429);
  assert.ok(Number(last!.headers.get('retry-after')) >= 1);
  assert.equal((await postJson(other.base, { phone: '+447400123463' })).status, 200);
});

test('never in full in any answer, page or log', async () => {
  await setting(biz, { phone_entry: true });
  const tk = await ticketOf(biz.liveKey);
  const typed = '+44\u00a07400\u00a0123464';
  const digits = '7400123464';
  const answers: string[] = [];
  answers.push(await (await postJson(tk.base, { phone: typed })).text());
  answers.push(await page(tk.base));
  const live = await openPage(t, tk.url, { ack: false });
  answers.push(JSON.stringify(live.snapshot));
  live.close();
  answers.push((await t.request('GET', `/v1/tickets/${tk.id}`, { key: biz.liveKey })).text);
  answers.push((await t.request('GET', '/v1/events?limit=100', { key: biz.liveKey })).text);
  answers.push(JSON.stringify(await ready(biz.liveKey, tk.id)));
  assert.equal(sms.messages.at(-1)!.to, `+44${digits}`, 'the number was used');
  assert.ok(logLines.length > 0, 'the server logged at trace level');
  for (const [what, text] of [...answers.map((a, i) => [`answer ${i}`, a]), ['logs', logLines.join('\n')]] as const) {
    assert.ok(!text.replace(/\D/g, '').includes(digits), `${what} holds the whole number`);
  }
});
