// One engine: renders a pass.json in the browser; nothing here goes through the store.
// The front of a ticket's Apple Wallet pass as Wallet lays it out (issue 28, item 5), drawn from
// its pass.json by test/helpers/pass-front.ts and screenshotted on an iPhone-sized screen: the
// shop top left, the queue top right, the number large, the status below, the ticket link as a QR
// code, in the pass's colours. The fixture is shaped like a readybell ticket pass; any pass.json
// renders (test/e2e/customer-wallet.e2e.ts draws a served one).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { SCREENSHOTS, box } from '../helpers/screens.ts';
import { passFrontHtml, type PassJson } from '../helpers/pass-front.ts';
import { ICONS_DIST } from '../../src/http/pages/assets.ts';

const TICKET_URL = 'https://pickup.example.com/t/01jd8x7k2m9q4r5s6t7v8w9x0yzabcdefghjk';

/** A ready ticket's pass, as readybell's Apple issuer would serve it. */
const READY_PASS: PassJson = {
  formatVersion: 1,
  passTypeIdentifier: 'pass.com.example.readybell',
  serialNumber: 'pass_01jd8x7k2m9q4r5s6t7v8w9x0y',
  teamIdentifier: 'ABCDE12345',
  organizationName: 'Demo Café',
  description: 'Pickup ticket A-42 at Demo Café',
  logoText: 'Demo Café',
  foregroundColor: 'rgb(255, 255, 255)',
  backgroundColor: 'rgb(11, 110, 79)',
  labelColor: 'rgb(190, 235, 214)',
  webServiceURL: 'https://pickup.example.com/passkit',
  authenticationToken: 'vxwxd7J8AlNNFPS8k0a0FfUFtq0ewzFdc',
  expirationDate: '2026-11-28T23:00:00Z',
  generic: {
    headerFields: [{ key: 'queue', label: 'Queue', value: 'A' }],
    primaryFields: [{ key: 'number', label: 'Ticket', value: 'A-42' }],
    secondaryFields: [{ key: 'status', label: 'Status', value: 'Ready — come to the counter' }],
    auxiliaryFields: [
      { key: 'since', label: 'Ready since', value: '12:41' },
      { key: 'shop', label: 'Pick up at', value: 'Main Street', textAlignment: 'PKTextAlignmentRight' },
    ],
    backFields: [{ key: 'link', label: 'Ticket page', value: TICKET_URL }],
  },
  barcodes: [{ format: 'PKBarcodeFormatQR', message: TICKET_URL, messageEncoding: 'iso-8859-1', altText: 'A-42' }],
};

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

async function render(pass: PassJson, icon?: Uint8Array): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 390, height: 700 }, deviceScaleFactor: 2 });
  await page.setContent(await passFrontHtml(pass, icon === undefined ? {} : { icon }));
  return page;
}

const fontSize = (page: Page, selector: string) => page.$eval(selector, (el) => Number.parseFloat(getComputedStyle(el).fontSize));

test('a ready ticket pass: shop top left, queue top right, the number large, status, QR of the ticket link; screenshot', async () => {
  const iconFile = path.join(ICONS_DIST, 'icon-192.png');
  const page = await render(READY_PASS, existsSync(iconFile) ? readFileSync(iconFile) : undefined);
  try {
    const logo = await box(page, '.logo-text');
    const header = await box(page, '.header[data-key="queue"]');
    const number = await box(page, '.primary[data-key="number"]');
    const status = await box(page, '.secondary[data-key="status"]');
    const qr = await box(page, '.qr svg');
    assert.equal((await page.textContent('.logo-text'))?.trim(), 'Demo Café');
    assert.ok(
      header.x > logo.x + logo.width - 1 && Math.abs(header.y - logo.y) < 30,
      'the header field is on the top row, right of the shop',
    );
    assert.ok(number.y > header.y && status.y > number.y && qr.y > status.y, 'top to bottom: header, number, status, barcode');
    assert.equal((await page.textContent('.primary .value'))?.trim(), 'A-42');
    assert.equal((await page.textContent('.secondary .value'))?.trim(), 'Ready — come to the counter');
    assert.ok(
      (await fontSize(page, '.primary .value')) >= 2 * (await fontSize(page, '.secondary .value')),
      'the number is the largest text',
    );
    assert.equal(await page.getAttribute('.barcode', 'data-message'), TICKET_URL);
    assert.ok(Math.abs(qr.width - qr.height) < 1 && qr.width >= 140, 'a square QR code large enough to scan');
    assert.equal((await page.textContent('.alt'))?.trim(), 'A-42');
    assert.equal(await page.$eval('.pass', (el) => getComputedStyle(el).backgroundColor), 'rgb(11, 110, 79)');
    assert.equal(await page.$eval('.label', (el) => getComputedStyle(el).color), 'rgb(190, 235, 214)');
    assert.equal(await page.$eval('.auxiliary[data-key="shop"]', (el) => getComputedStyle(el).textAlign), 'right');
    assert.equal(await page.locator('text=Ticket page').count(), 0, 'back fields are not on the front');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.locator('.pass').screenshot({ path: path.join(SCREENSHOTS, 'pass-front.png') });
  } finally {
    await page.close();
  }
});

test('any pass.json: a storeCard without colours or logo takes Wallet’s defaults', async () => {
  const page = await render({
    organizationName: 'Other shop',
    description: 'Card',
    storeCard: { primaryFields: [{ key: 'n', value: 'B-7' }] },
    barcode: { format: 'PKBarcodeFormatQR', message: 'https://example.com/t/x' },
  });
  try {
    assert.equal((await page.textContent('.primary .value'))?.trim(), 'B-7');
    assert.equal(await page.$eval('.pass', (el) => getComputedStyle(el).backgroundColor), 'rgb(255, 255, 255)');
    assert.equal(await page.locator('.qr svg').count(), 1);
  } finally {
    await page.close();
  }
});
