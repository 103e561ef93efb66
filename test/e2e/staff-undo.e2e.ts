// Collected and Cancel at a busy counter (issue 25 item 11, decision 0047): a few seconds of Undo
// (a notice with Undo, and on the card), the X shortcut too; undone, nothing was sent; and a ticket
// cancelled by mistake is brought back from the Recently closed column. The page's timers run on
// Playwright's clock, so the Undo's seconds pass at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { pathOf } from '../helpers/live.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { card, openOwnerPageOnClock } from '../helpers/staff-page.ts';

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
const statusOf = async (id: string): Promise<string> => (await api('GET', `/v1/tickets/${id}`)).body.status;
const column = (page: Page, name: string, number: string) => page.locator(`.column-${name}`).locator(`li[data-number="${number}"]`);

const board = () => openOwnerPageOnClock(browser, t);

test('Cancel waits a few seconds with an Undo; undone, nothing reaches the service', async () => {
  const tk = (await api('POST', '/v1/tickets', { external_ref: 'undo-1' })).body;
  const { page, errors, close } = await board();
  try {
    await card(page, tk.display_number).waitFor();
    await page.click(`button[aria-label="Cancel ${tk.display_number}"]`);
    const notice = page.locator('.notice', { hasText: `${tk.display_number} cancelled.` });
    await notice.waitFor();
    assert.match((await card(page, tk.display_number).textContent())!, /Cancelled in a moment/);
    await notice.locator('button:has-text("Undo")').click();
    await card(page, tk.display_number).locator(`button[aria-label="Cancel ${tk.display_number}"]`).waitFor();
    await page.clock.runFor(10_000);
    assert.equal(await statusOf(tk.id), 'created', 'the cancel was never sent');
    assert.equal(await column(page, 'waiting', tk.display_number).count(), 1);
    const events = (await api('GET', '/v1/events?type=ticket.cancelled')).body.data.filter((e: any) => e.data.object.id === tk.id);
    assert.equal(events.length, 0, 'the POS heard nothing');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test("Collected on a ready card, undone from the card itself; the X shortcut cancels once the Undo's time is up", async () => {
  const ready = (await api('POST', '/v1/tickets', { external_ref: 'undo-2' })).body;
  assert.equal((await api('POST', `/v1/tickets/${ready.id}/ready`)).status, 200);
  const other = (await api('POST', '/v1/tickets', { external_ref: 'undo-3' })).body;
  const { page, errors, close } = await board();
  try {
    await card(page, ready.display_number).waitFor();
    await page.click(`button[aria-label="${ready.display_number} collected"]`);
    await page.click(`button[aria-label="Undo for ${ready.display_number}"]`);
    await page.clock.runFor(10_000);
    assert.equal(await statusOf(ready.id), 'ready');

    await card(page, other.display_number).locator('.ticket-meta').click();
    await page.keyboard.press('x');
    await page.locator('.notice', { hasText: `${other.display_number} cancelled.` }).waitFor();
    assert.equal(await statusOf(other.id), 'created', 'not yet: the Undo is still offered');
    await page.clock.runFor(5_000);
    await column(page, 'closed', other.display_number).waitFor();
    assert.equal(await statusOf(other.id), 'cancelled');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('a ticket cancelled by mistake is brought back from Recently closed; its customer page, opened again, shows it', async () => {
  const tk = (await api('POST', '/v1/tickets', { external_ref: 'undo-4' })).body;
  assert.equal((await api('POST', `/v1/tickets/${tk.id}/cancel`)).status, 200);
  const { page, errors, close } = await board();
  try {
    await column(page, 'closed', tk.display_number).waitFor();
    await page.click(`button[aria-label="Bring ${tk.display_number} back"]`);
    await column(page, 'waiting', tk.display_number).waitFor();
    await page.locator('.notice', { hasText: `${tk.display_number} is back.` }).waitFor();
    assert.equal(await statusOf(tk.id), 'created');
    const customer = await fetch(t.url + pathOf(tk.url));
    assert.equal(customer.status, 200);
    assert.match(await customer.text(), /<html lang="en" data-state="created">/, 'the page shows the order being prepared again');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
