// The staff board shows a text's delivery receipt on the ticket's card as the provider reports
// it (decision 0026): sent, delivered, or not delivered, so staff can call the customer instead.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeSmsProvider } from '../helpers/sms-provider.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { card, openStaffPage, shot } from '../helpers/staff-page.ts';

const clock = new FakeClock(Date.now());
let t: TestApp;
let sms: FakeSmsProvider;
let biz: Tenant;
let browser: Browser;
before(async () => {
  sms = await new FakeSmsProvider().start();
  t = await startTestApp({ clock, env: sms.env() });
  biz = await t.newTenant({ plan: 'business' });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await sms?.close();
});

test("a ticket's card follows its text from sent to delivered, and says when one was not delivered", async () => {
  const { ctx, page, errors } = await openStaffPage(browser, t, { email: biz.ownerEmail, password: biz.ownerPassword });
  const texted = async (phone: string) => {
    const created = await t.request('POST', '/v1/tickets', { key: biz.liveKey, body: { customer_phone: phone } });
    assert.equal((await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key: biz.liveKey })).body.channel_used, 'sms');
    return { number: created.body.display_number as string, text: sms.messages.at(-1)! };
  };
  const first = await texted('+14155550181');
  await card(page, first.number).locator('.chip-sms:has-text("Text sending")').waitFor();
  await sms.receipt(t.url, first.text, 'sent');
  await card(page, first.number).locator('.chip-sms:has-text("Text sent")').waitFor();
  await sms.receipt(t.url, first.text, 'delivered');
  await card(page, first.number).locator('.chip-sms-delivered:has-text("Text delivered")').waitFor();

  const second = await texted('+14155550182');
  await sms.receipt(t.url, second.text, 'undelivered', { errorCode: '30003' });
  await card(page, second.number).locator('.chip-sms-failed:has-text("Text not delivered")').waitFor();
  await shot(page, 'board-sms-receipts', false);
  assert.deepEqual(errors, []);
  await ctx.close();
});
