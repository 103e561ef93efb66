// The SMS webhooks' form fields pass the same input guard as a JSON body (decision 0015): a NUL
// in a decoded value (`Body=a%00b`, `MessageSid=SM%00x`, `ErrorCode=300%000`) is a 422 problem
// pointing at the field, on both stores (PostgreSQL cannot hold it: it was a 500 there, and the
// embedded store kept it), and nothing is recorded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeSmsProvider, type Callback } from '../helpers/sms-provider.ts';
import { latestSmsOfTicket } from '../../src/store/sms-messages.ts';

const PUBLIC = 'http://localhost:3000';
let t: TestApp;
let sms: FakeSmsProvider;
let biz: Tenant;

before(async () => {
  sms = await new FakeSmsProvider().start();
  t = await startTestApp({ env: sms.env() });
  biz = await t.newTenant({ plan: 'business' });
});
after(async () => {
  await t?.close();
  await sms.close();
});

function assertRefused(res: Callback, pointers: string[]): void {
  assert.equal(res.status, 422, res.text);
  assert.match(res.type ?? '', /^application\/problem\+json/);
  const problem = JSON.parse(res.text);
  assert.equal(problem.code, 'validation-failed');
  assert.deepEqual(
    problem.errors.map((e: { pointer: string }) => e.pointer),
    pointers,
  );
  assert.match(problem.detail, /NUL/);
}

test('a NUL in a decoded field of an inbound text or a delivery receipt is refused like one in JSON, and nothing is recorded', async () => {
  const phone = '+14155550101';
  const created = await t.request('POST', '/v1/tickets', { key: biz.liveKey, body: { customer_phone: phone } });
  assert.equal(created.status, 201, created.text);
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key: biz.liveKey });
  assert.equal(ready.body.channel_used, 'sms', ready.text);
  const text = sms.messages.at(-1)!;

  assertRefused(await sms.inbound(t.url, PUBLIC, phone, 'a\u0000b'), ['/Body']);
  assertRefused(await sms.inbound(t.url, PUBLIC, phone, '1', { messageSid: 'SM\u0000x' }), ['/SmsMessageSid', '/SmsSid', '/MessageSid']);
  assertRefused(await sms.receipt(t.url, text, 'undelivered', { errorCode: '300\u00000' }), ['/ErrorCode']);
  const ticket = (await t.request('GET', `/v1/tickets/${created.body.id}`, { key: biz.liveKey })).body;
  assert.equal(ticket.customer.acknowledged_at, null, 'the refused "1" did nothing');
  assert.equal(ticket.sms_status, 'queued', 'the refused receipt did nothing');

  // The same fields without the NUL are taken as before.
  assert.equal((await sms.receipt(t.url, text, 'undelivered', { errorCode: '30003' })).status, 204);
  assert.equal((await latestSmsOfTicket(t.app.services.db, created.body.id))?.errorCode, '30003');
});
