// The staff link the demo prints (`/staff/?mode=test`) opens on Test data, where a newcomer's
// test-key tickets are; the link's choice is read once, so the tab then behaves as any other (a
// reload keeps the mode chosen in it), and a plain `/staff` starts on live data (issue 36 item 11).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { signInOnPage } from '../helpers/staff-page.ts';

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

test("the demo's staff link opens on Test data, showing the test key's tickets; a plain /staff opens on Live", async () => {
  const made = await t.request('POST', '/v1/tickets', { key: t.tenant.testKey, body: { external_ref: 'newcomer-1' } });
  assert.equal(made.status, 201, made.text);
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${t.url}/staff/?mode=test`);
  await signInOnPage(page, { email: t.tenant.ownerEmail, password: t.tenant.ownerPassword });
  await page.waitForSelector('.test-band');
  await page.locator('.ticket .ref:has-text("newcomer-1")').waitFor();
  assert.equal(await page.isChecked('.mode-option-test input'), true);
  assert.doesNotMatch(page.url(), /mode=/, 'the link is read once');
  await page.reload();
  await page.waitForSelector('.test-band');
  const other = await ctx.newPage();
  await other.goto(`${t.url}/staff`);
  await other.waitForSelector('.board');
  assert.equal(await other.locator('.test-band').count(), 0, 'a plain /staff starts on live data');
  await ctx.close();
});
