// The customer page in a real browser (Debian's Chromium): open the link, mark the ticket ready
// through the API, and the page rings; the API says it reached the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pathOf } from '../helpers/live.ts';
import { ARTIFACTS, launchChromium, PHONE } from '../helpers/chromium.ts';

let t: TestApp;
let browser: Browser;
before(async () => {
  t = await startTestApp();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test('the open page rings when the ticket is ready, and the API answers rang: true via the page', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: { external_ref: 'pos-1' } })).body;
  const ctx = await browser.newContext({ ...PHONE, locale: 'en-GB' });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(t.url + pathOf(tk.url));
  assert.equal(await page.textContent('#num'), tk.display_number);
  await page.waitForSelector('html[data-live="on"]');
  await page.screenshot({ path: path.join(ARTIFACTS, 'customer-waiting.png') });
  await page.click('#alert');
  await page.waitForSelector('#alert-on:not([hidden])');

  const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  assert.equal(ready.status, 200);
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [true, 'page']);

  await page.waitForSelector('html[data-ringing][data-state="ready"]');
  await page.waitForFunction(() => document.getElementById('live')!.textContent!.includes('is ready'));
  assert.match(await page.textContent('h1') ?? '', /Your order is ready!/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'customer-rung.png') });

  await page.click('text=On my way');
  await page.waitForSelector('html[data-state="acknowledged"]');
  assert.equal(await page.getAttribute('html', 'data-ringing'), null);
  const after = (await t.request('GET', `/v1/tickets/${tk.id}`)).body;
  assert.ok(after.customer.acknowledged_at);
  assert.ok(after.customer.viewed_at);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('in French, and "Need 5 more minutes" snoozes from the page', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const ctx = await browser.newContext({ ...PHONE, locale: 'fr-FR' });
  const page = await ctx.newPage();
  await page.goto(t.url + pathOf(tk.url));
  await page.waitForSelector('html[data-live="on"]');
  assert.equal(await page.getAttribute('html', 'lang'), 'fr');
  const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  assert.equal(ready.body.channel_used, 'page');
  await page.waitForSelector('html[data-ringing]');
  await page.click('text=Encore 5 minutes');
  await page.waitForSelector('html[data-state="snoozed"]');
  assert.match(await page.textContent('#detail') ?? '', /Nous vous rappellerons à \d\d:\d\d/);
  await ctx.close();
});

test('without JavaScript the page still shows the status and the buttons work', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  const ctx = await browser.newContext({ ...PHONE, javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto(t.url + pathOf(tk.url));
  assert.match(await page.textContent('h1') ?? '', /Your order is ready!/);
  await page.click('text=On my way');
  await page.waitForURL(t.url + pathOf(tk.url));
  assert.match(await page.textContent('h1') ?? '', /See you at the counter/);
  await ctx.close();
});
