// The API reference (/docs) in a real browser, under the page's own CSP and with every other
// host unreachable (as on an offline machine): it renders readybell's document, an operation
// with its curl sample, and logs no error; axe (WCAG 2.2 A and AA) finds nothing on it, in light
// and in dark mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { axeViolations, SCREENSHOTS } from '../helpers/screens.ts';

let t: TestApp;
let browser: Browser;
before(async () => {
  t = await startTestApp();
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test('/docs renders the readybell reference with code samples, and no console error under its CSP', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  const elsewhere: string[] = [];
  await page.route(
    (url) => url.origin !== new URL(t.url).origin && url.protocol !== 'data:',
    async (route) => {
      elsewhere.push(route.request().url());
      await route.abort();
    },
  );

  const res = await page.goto(`${t.url}/docs/`);
  assert.equal(res?.status(), 200);
  assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'self' 'sha256-/);
  assert.equal(await page.title(), 'readybell API reference');
  await page.getByRole('heading', { name: 'readybell API', exact: true }).waitFor();
  assert.equal(await page.locator('html').getAttribute('lang'), 'en');
  await page.waitForLoadState('networkidle');
  assert.deepEqual(await axeViolations(page), [], 'axe (WCAG 2.2 A/AA) on /docs as it opens');

  // An operation, with its description, parameters and a curl sample carrying the Idempotency-Key.
  await page.getByRole('link', { name: 'Mark a ticket ready and ring the customer' }).first().click();
  const operation = page
    .locator('section', { has: page.getByRole('heading', { name: 'Mark a ticket ready and ring the customer' }) })
    .first();
  await operation.waitFor();
  await operation.getByText('Rings every free channel the customer has').first().waitFor();
  await operation.getByText('Idempotency-Key', { exact: true }).first().waitFor();
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText(), not the DOM property: the sample as rendered, line breaks included
  const sample = await operation.locator('pre, code').filter({ hasText: 'curl' }).first().innerText();
  assert.match(sample, /curl .*\/v1\/tickets\/tk_01m81j19a75aagw39z4av2ch96\/ready/);
  assert.match(sample, /Idempotency-Key: order-1001-ready/);
  assert.match(sample, /Authorization: Bearer/);

  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'docs.png') });
  assert.deepEqual(await axeViolations(page), [], 'axe (WCAG 2.2 A/AA) on /docs with an operation open');
  assert.deepEqual(errors, []);
  assert.deepEqual(elsewhere, [], 'the page asked another host for something');
  await page.close();
});

test('/docs in dark mode: axe finds nothing either', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });
  await page.goto(`${t.url}/docs/`);
  await page.getByRole('heading', { name: 'readybell API', exact: true }).waitFor();
  await page.waitForLoadState('networkidle');
  assert.deepEqual(await axeViolations(page), [], 'axe (WCAG 2.2 A/AA) on /docs, dark');
  await page.close();
});
