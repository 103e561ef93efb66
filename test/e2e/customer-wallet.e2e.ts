// "Add to Apple Wallet" on the customer page (issue 28, decision 0071): on an iPhone-sized screen
// with iOS Safari's user agent, Apple's black badge with the Wallet mark, which serves the pass; on
// desktop Chromium a plain link to the same pass. Screenshots for people: the page with the badge
// (/work/notes/screens/customer-wallet-iphone.png) and the pass's front as Wallet lays out a
// generic pass (header, primary, secondary, QR), drawn from the served pass.json
// (/work/notes/screens/wallet-pass-front.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import { devices, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pathOf } from '../helpers/live.ts';
import { launchChromium, PHONE } from '../helpers/chromium.ts';
import { axeViolations } from '../helpers/screens.ts';
import { makeWalletCerts, type WalletCerts } from '../helpers/wallet-certs.ts';
import { readPkpass } from '../helpers/wallet-device.ts';

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

test("the pass's front, drawn from the served pass.json as Wallet lays out a generic pass", async () => {
  const ticket = await create();
  const res = await fetch(`${t.url}${pathOf(ticket.url)}/wallet/apple.pkpass`);
  const { json, files } = readPkpass(new Uint8Array(await res.arrayBuffer()));
  const g = json.generic;
  const qr = await QRCode.toDataURL(json.barcodes[0].message, { margin: 1, width: 240 });
  const icon = `data:image/png;base64,${Buffer.from(files['icon@3x.png']!).toString('base64')}`;
  const field = (f: { label: string; value: string }, cls: string) =>
    `<div class="${cls}"><div class="l">${f.label}</div><div class="v">${f.value}</div></div>`;
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>
    body{margin:0;background:#e5e5ea;font:15px -apple-system,system-ui,sans-serif;display:flex;justify-content:center;padding:24px}
    .pass{width:340px;border-radius:14px;padding:14px 16px 20px;background:${json.backgroundColor};color:${json.foregroundColor};box-shadow:0 2px 12px rgb(0 0 0/.25)}
    .top{display:flex;align-items:center;gap:8px;justify-content:space-between}.org{display:flex;align-items:center;gap:8px;font-weight:600}
    .org img{width:29px;height:29px}.l{font-size:11px;text-transform:uppercase;color:${json.labelColor};letter-spacing:.04em}
    .primary{margin:22px 0 14px}.primary .v{font-size:54px;font-weight:300;line-height:1}.secondary .v{font-size:19px}
    .qr{margin-top:26px;display:flex;flex-direction:column;align-items:center;gap:4px}.qr img{background:#fff;padding:8px;border-radius:6px;width:150px}
    .alt{font-size:12px}</style></head><body><div class="pass">
    <div class="top"><div class="org"><img src="${icon}" alt="">${json.organizationName}</div></div>
    ${field(g.primaryFields[0], 'primary')}${field(g.secondaryFields[0], 'secondary')}
    <div class="qr"><img src="${qr}" alt="QR code of the ticket link"><div class="alt">${json.barcodes[0].altText}</div></div>
    </div></body></html>`;
  const ctx = await browser.newContext({ viewport: { width: 400, height: 560 }, deviceScaleFactor: 2 });
  try {
    const page = await ctx.newPage();
    await page.setContent(html);
    assert.equal((await page.locator('.primary .v').textContent())?.trim(), ticket.display_number);
    await page.screenshot({ path: path.join(NOTES, 'wallet-pass-front.png'), animations: 'disabled' });
  } finally {
    await ctx.close();
  }
});
