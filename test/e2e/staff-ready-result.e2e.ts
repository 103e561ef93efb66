// The result of Ready where staff are looking (issue 25 item 12): the card moves to the end of
// the Ready column, off-screen on a busy 1280×800 tablet, so the ring's result is also a notice on
// screen; when no phone was reached it stays until dismissed. The page's timers run on
// Playwright's clock. The screen with the notice is kept as test-artifacts/screenshots/staff-ready-nobody-reached-1280x800.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { pathOf } from '../helpers/live.ts';
import { launchChromium, PHONE } from '../helpers/chromium.ts';
import { card, keepScreen, openOwnerPageOnClock } from '../helpers/staff-page.ts';

const clock = new FakeClock(Date.now());
let t: TestApp;
let browser: Browser;
before(async () => {
  t = await startTestApp({ clock });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key: t.tenant.liveKey, body });

const board = () => openOwnerPageOnClock(browser, t);

/** Whether the element is wholly inside the 1280×800 window. */
async function onScreen(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  return box !== null && box.y >= 0 && box.y + box.height <= 800 && box.x >= 0 && box.x + box.width <= 1280;
}

test('on a busy board, Ready for a ticket nobody can be rung for says so on screen until dismissed', async () => {
  // A busy counter: the Ready column runs past the bottom of the screen.
  for (let i = 0; i < 10; i++) {
    const tk = (await api('POST', '/v1/tickets', { external_ref: `busy-${i}` })).body;
    assert.equal((await api('POST', `/v1/tickets/${tk.id}/ready`)).status, 200);
  }
  const tk = (await api('POST', '/v1/tickets', { external_ref: 'nobody' })).body;
  const { page, errors, close } = await board();
  try {
    await card(page, tk.display_number).waitFor();
    await page.click(`button[aria-label="Mark ${tk.display_number} ready"]`);
    await page.locator('.column-ready').locator(`li[data-number="${tk.display_number}"]`).waitFor();
    assert.equal(
      await onScreen(page, `.column-ready li[data-number="${tk.display_number}"]`),
      false,
      'the card itself went off-screen (the reason for the notice)',
    );
    const notice = `.notice-warning:has-text("${tk.display_number} is ready, but no phone could be rung")`;
    await page.locator(notice).waitFor();
    assert.ok(await onScreen(page, notice));
    // Kept like the other staff screens (test-artifacts/screenshots/), and checked with axe.
    const shot = await keepScreen(page, 'ready-nobody-reached-1280x800', false);
    assert.deepEqual(
      shot.violations.map((v) => v.id),
      [],
    );
    await page.clock.runFor(120_000);
    assert.equal(await page.locator(notice).count(), 1, 'still there two minutes later');
    await page.locator(notice).locator('button[aria-label="Dismiss message"]').click();
    assert.equal(await page.locator(notice).count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('Ready for a ticket whose page is open says who was rung, and the notice passes', async () => {
  const tk = (await api('POST', '/v1/tickets', { external_ref: 'reached' })).body;
  const customer = await browser.newContext({ ...PHONE, locale: 'en-GB' });
  const { page, errors, close } = await board();
  try {
    const phone = await customer.newPage();
    await phone.goto(t.url + pathOf(tk.url));
    await phone.waitForSelector('html[data-live="on"]');
    await card(page, tk.display_number).locator('.chip-viewed').waitFor();
    await page.click(`button[aria-label="Mark ${tk.display_number} ready"]`);
    const notice = `.notice-success:has-text("Rang ${tk.display_number} via the open ticket page")`;
    await page.locator(notice).waitFor();
    await page.clock.runFor(10_000);
    assert.equal(await page.locator(notice).count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await close();
    await customer.close();
  }
});
