// "Add to Apple Wallet" on the customer page (issue 28, decision 0071): on an iPhone-sized screen
// with iOS Safari's user agent, Apple's black badge with the Wallet mark, which serves the pass; on
// desktop Chromium a plain link to the same pass. Screenshots for people: the page with the badge
// (/work/notes/screens/customer-wallet-iphone.png) and the pass's front as Wallet lays out a
// generic pass, drawn from the served pass.json of a ready ticket by test/helpers/pass-front.ts
// (/work/notes/screens/wallet-pass-front.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { devices, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pathOf } from '../helpers/live.ts';
import { launchChromium, PHONE } from '../helpers/chromium.ts';
import { axeViolations } from '../helpers/screens.ts';
import { makeWalletCerts, type WalletCerts } from '../helpers/wallet-certs.ts';
import { readPkpass } from '../helpers/wallet-device.ts';
import { passFrontHtml, type PassJson } from '../helpers/pass-front.ts';

const NOTES = '/work/notes/screens';
let t: TestApp;
let browser: Browser;
let certs: WalletCerts;

before(async () => {
  certs = makeWalletCerts();
  t = await startTestApp({ env: certs.env('https://127.0.0.1:9') });
  assert.equal((await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { name: 'Demo Café' } })).status, 200);
  t.app.live.data.branchChanged(t.tenant.branchId);
  browser = await launchChromium();
  mkdirSync(NOTES, { recursive: true });
});
after(async () => {
  await browser?.close();
  await t?.close();
  certs?.drop();
});

const create = async () => (await t.request('POST', '/v1/tickets', { body: { queue: 'A' } })).body;

test('on an iPhone, the open ticket offers the Add to Apple Wallet badge, which serves the pass', async () => {
  const ticket = await create();
  const ctx = await browser.newContext({ ...PHONE, userAgent: devices['iPhone 15']!.userAgent, locale: 'en-US' });
  try {
    const page = await ctx.newPage();
    await page.goto(t.url + pathOf(ticket.url));
    const badge = page.locator('#wallet-apple');
    assert.ok(await badge.isVisible(), 'the badge is on screen');
    assert.equal(await badge.getAttribute('class'), 'wallet-badge');
    assert.equal((await badge.textContent())?.trim(), 'Add to Apple Wallet');
    const look = await badge.evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, color: getComputedStyle(el).color }));
    assert.deepEqual(look, { bg: 'rgb(0, 0, 0)', color: 'rgb(255, 255, 255)' }, 'black with white words, as Apple draws it');
    assert.equal(await page.locator('#wallet-google').count(), 0, 'no Google button without Google Wallet configured');
    assert.deepEqual(await axeViolations(page), []);
    await page.screenshot({ path: path.join(NOTES, 'customer-wallet-iphone.png'), fullPage: true, animations: 'disabled' });

    const pass = await page.request.get(t.url + (await badge.getAttribute('href'))!);
    assert.equal(pass.status(), 200);
    assert.equal(pass.headers()['content-type'], 'application/vnd.apple.pkpass');

    // Once the ticket is collected the offer goes.
    await t.request('POST', `/v1/tickets/${ticket.id}/collect`);
    await page.reload();
    assert.equal(await page.locator('#wallet-apple').count(), 0);
  } finally {
    await ctx.close();
  }
});

test('on desktop Chromium the same offer is a plain link', async () => {
  const ticket = await create();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await ctx.newPage();
    await page.goto(t.url + pathOf(ticket.url));
    const link = page.locator('#wallet-apple');
    assert.ok(await link.isVisible());
    assert.equal(await link.getAttribute('class'), 'wallet-link');
    assert.equal(await link.getAttribute('href'), `${pathOf(ticket.url)}/wallet/apple.pkpass`);
  } finally {
    await ctx.close();
  }
});

test("the pass's front after ready, drawn from the served pass.json as Wallet lays out a generic pass", async () => {
  const ticket = await create();
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/ready`)).status, 200);
  const res = await fetch(`${t.url}${pathOf(ticket.url)}/wallet/apple.pkpass`);
  assert.equal(res.status, 200);
  const { json, files } = readPkpass(new Uint8Array(await res.arrayBuffer()));
  const ctx = await browser.newContext({ viewport: { width: 390, height: 560 }, deviceScaleFactor: 2 });
  try {
    const page = await ctx.newPage();
    await page.setContent(await passFrontHtml(json as PassJson, { icon: files['icon@3x.png'] }));
    assert.equal((await page.textContent('.primary .value'))?.trim(), ticket.display_number);
    assert.equal(await page.getAttribute('.barcode', 'data-message'), ticket.url);
    assert.match((await page.textContent('.pass'))!, /ready/i, 'the front says the order is ready');
    await page.locator('.pass').screenshot({ path: path.join(NOTES, 'wallet-pass-front.png'), animations: 'disabled' });
  } finally {
    await ctx.close();
  }
});
