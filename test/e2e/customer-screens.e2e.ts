// The customer page as a customer sees it, in every state, on a 360 px phone, in every language
// (Arabic right to left), with and without JavaScript: a screenshot of each under
// test-artifacts/screenshots/, axe-core (WCAG 2.2 A/AA) on each with no violation, and what a
// customer would notice measured: the shop's name is shown, only the actions that make sense in
// the state are offered, nothing runs off the side of the screen. On an iPhone, "Alert me" shows
// how to add the page to the Home Screen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { devices, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { pathOf } from '../helpers/live.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { box, checkScreen, SMALL_PHONE, TABLET, visibleActions } from '../helpers/screens.ts';
import { customerTexts } from '../../src/i18n/customer-texts.ts';
import type { Language } from '../../src/i18n/language.ts';

const SHOP = 'Demo Café — Main Street';
let t: TestApp;
let browser: Browser;
const clock = new FakeClock();
before(async () => {
  t = await startTestApp({ clock, env: { RING_DEADLINE_MS: '300' } });
  browser = await launchChromium();
  assert.equal((await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { name: SHOP } })).status, 200);
  t.app.live.data.branchChanged(t.tenant.branchId);
  // Recent history, so that a waiting page shows an estimated wait.
  for (let i = 0; i < 3; i++) {
    const old = (await t.request('POST', '/v1/tickets', { body: {} })).body;
    clock.advance(6 * 60_000);
    await t.request('POST', `/v1/tickets/${old.id}/ready`);
    await t.request('POST', `/v1/tickets/${old.id}/collect`);
  }
});
after(async () => {
  await browser?.close();
  await t?.close();
});

const create = async () => (await t.request('POST', '/v1/tickets', { body: {} })).body;

type Opened = { ctx: BrowserContext; page: Page; errors: string[] };

async function open(ticketUrl: string, lang: Language, opts: { js?: boolean; device?: object } = {}): Promise<Opened> {
  const ctx = await browser.newContext({ ...(opts.device ?? SMALL_PHONE), locale: lang, javaScriptEnabled: opts.js ?? true });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(t.url + pathOf(ticketUrl));
  return { ctx, page, errors };
}

/** What every screen must show, whatever its state and language. */
async function assertFinished(page: Page, lang: Language): Promise<void> {
  assert.equal(await page.getAttribute('html', 'lang'), lang);
  assert.equal(await page.getAttribute('html', 'dir'), lang === 'ar' ? 'rtl' : null);
  assert.equal((await page.textContent('#shop'))?.trim(), SHOP);
  assert.ok(await page.isVisible('#shop'), 'the shop name is on screen');
  assert.match(await page.title(), new RegExp(`· ${SHOP}$`), 'the tab names the shop');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `nothing runs off the side of the screen (${overflow}px)`);
  const num = await page.$eval('#num', (el) => ({ h: el.getBoundingClientRect().height, size: parseFloat(getComputedStyle(el).fontSize) }));
  assert.ok(num.h < 1.5 * num.size, 'the number stands on one line');
  assert.ok(num.size >= 56, `the number is large (${num.size}px)`);
}

for (const lang of ['en', 'ar'] as const) {
  test(`every state in ${lang === 'en' ? 'English' : 'Arabic, right to left'}: finished, only the actions that make sense, no accessibility violation`, async () => {
    const tx = customerTexts(lang);
    const onMyWay = tx.t('action.onMyWay');
    const snooze = tx.t('action.snooze', { count: 5 });

    await create(); // one order ahead
    const tk = await create();
    const { ctx, page, errors } = await open(tk.url, lang);
    await page.waitForSelector('html[data-live="on"]');
    await page.waitForSelector('#alert:not([hidden])');
    await assertFinished(page, lang);
    assert.ok(await page.isVisible('#pos'));
    assert.ok(await page.isVisible('#wait'));
    assert.deepEqual(await visibleActions(page), [tx.t('action.alertMe')]);
    if (lang === 'ar') {
      const bell = await box(page, '.shop .bell');
      const name = await box(page, '#shop');
      assert.ok(bell.x > name.x, 'right to left: the bell stands before (right of) the shop name');
    }
    await checkScreen(page, `customer-created-${lang}`);

    await t.request('POST', `/v1/tickets/${tk.id}/ready`);
    await page.waitForSelector('html[data-ringing][data-state="ready"]');
    await assertFinished(page, lang);
    assert.deepEqual(await visibleActions(page), [onMyWay, snooze], 'rung: "On my way" and "Need 5 more minutes", no "Alert me"');
    await checkScreen(page, `customer-ready-${lang}`);

    await page.click('.snooze button');
    await page.waitForSelector('html[data-state="snoozed"]');
    await assertFinished(page, lang);
    assert.deepEqual(await visibleActions(page), [onMyWay], 'snoozed: only "On my way"');
    await checkScreen(page, `customer-snoozed-${lang}`);

    await page.click('.actions button.primary');
    await page.waitForSelector('html[data-state="acknowledged"]');
    await assertFinished(page, lang);
    assert.deepEqual(await visibleActions(page), [], 'answered: nothing left to do');
    await checkScreen(page, `customer-acknowledged-${lang}`);

    await t.request('POST', `/v1/tickets/${tk.id}/collect`);
    await page.waitForSelector('html[data-state="collected"]');
    await assertFinished(page, lang);
    assert.deepEqual(await visibleActions(page), []);
    await checkScreen(page, `customer-collected-${lang}`);
    assert.deepEqual(errors, []);
    await ctx.close();

    const cancelled = await create();
    await t.request('POST', `/v1/tickets/${cancelled.id}/cancel`, { body: { reason: 'Out of stock' } });
    const c = await open(cancelled.url, lang);
    await assertFinished(c.page, lang);
    assert.equal(await c.page.getAttribute('html', 'data-state'), 'cancelled');
    assert.deepEqual(await visibleActions(c.page), []);
    await checkScreen(c.page, `customer-cancelled-${lang}`);
    await c.ctx.close();
  });
}

test('the rung page in every other language: translated, finished, no accessibility violation', async () => {
  for (const lang of ['fr', 'es', 'de', 'it', 'pt', 'nl'] as const) {
    const tx = customerTexts(lang);
    const tk = await create();
    await t.request('POST', `/v1/tickets/${tk.id}/ready`);
    const { ctx, page } = await open(tk.url, lang);
    await page.waitForSelector('html[data-ringing]');
    await assertFinished(page, lang);
    assert.equal(await page.textContent('h1'), tx.t('heading.ready'));
    assert.deepEqual(await visibleActions(page), [tx.t('action.onMyWay'), tx.t('action.snooze', { count: 5 })]);
    await checkScreen(page, `customer-ready-${lang}`);
    await ctx.close();
  }
});

test('waiting, with a message from the shop, in German; and on a tablet', async () => {
  const ann = await t.request('POST', '/v1/announcements', { body: { message: 'Die Küche braucht heute etwa 10 Minuten länger.' } });
  assert.equal(ann.status, 201, ann.text);
  const tk = await create();
  const de = await open(tk.url, 'de');
  await de.page.waitForSelector('#ann:not([hidden])');
  await de.page.waitForSelector('#alert:not([hidden])');
  await assertFinished(de.page, 'de');
  await checkScreen(de.page, 'customer-created-de-announcement');
  await de.ctx.close();
  await t.request('DELETE', `/v1/announcements/${ann.body.id}`);

  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  const tablet = await open(tk.url, 'en', { device: TABLET });
  await tablet.page.waitForSelector('html[data-ringing]');
  await assertFinished(tablet.page, 'en');
  await checkScreen(tablet.page, 'customer-ready-en-tablet');
  await tablet.ctx.close();
});

test('on an iPhone, "Alert me" explains Add to Home Screen, in English and Arabic: finished, no accessibility violation', async () => {
  for (const lang of ['en', 'ar'] as const) {
    const tx = customerTexts(lang);
    const tk = await create();
    const { ctx, page, errors } = await open(tk.url, lang, { device: devices['iPhone 15'] });
    await page.waitForSelector('html[data-live="on"]');
    await page.click('#alert');
    await page.waitForSelector('#ios:not([hidden])');
    await assertFinished(page, lang);
    assert.equal((await page.textContent('#ios-h'))?.trim(), tx.t('ios.title'));
    assert.deepEqual(
      await page.$$eval('#ios li', (li) => li.map((l) => l.textContent!.trim())),
      [tx.t('ios.share'), tx.t('ios.add')],
      'the two taps, in order',
    );
    assert.ok(await page.isVisible('#ios .share'), "Safari's Share symbol is drawn beside its name");
    assert.deepEqual(await visibleActions(page), [], '"Alert me" was answered by the explanation');
    await checkScreen(page, `customer-ios-home-screen-${lang}`);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

test('"Text me" where the shop asks for a phone number, in English and Arabic, with and without script: finished, no accessibility violation', async () => {
  const biz = await t.newTenant({ plan: 'business' });
  const patched = await t.request('PATCH', '/v1/branch', { key: biz.liveKey, body: { name: SHOP, customer_page: { phone_entry: true } } });
  assert.equal(patched.status, 200, patched.text);
  t.app.live.data.branchChanged(biz.branchId);
  for (const lang of ['en', 'ar'] as const) {
    const tx = customerTexts(lang);
    const tk = (await t.request('POST', '/v1/tickets', { key: biz.testKey, body: {} })).body;
    const { ctx, page, errors } = await open(tk.url, lang);
    await page.waitForSelector('#alert:not([hidden])');
    await assertFinished(page, lang);
    assert.deepEqual(await visibleActions(page), [tx.t('action.alertMe'), tx.t('phone.submit')]);
    await checkScreen(page, `customer-created-text-me-${lang}`);
    await page.fill('#phone', '+44 20 7946 0958');
    await page.click('#phone-form button');
    await page.waitForSelector('#phone-error:not([hidden])');
    assert.equal(await page.textContent('#phone-error'), tx.t('phone.error.not-mobile'));
    await checkScreen(page, `customer-created-text-me-refused-${lang}`);
    await page.fill('#phone', '+44 7400 123456');
    await page.click('#phone-form button');
    await page.waitForSelector('#phone-on:not([hidden])');
    await assertFinished(page, lang);
    await checkScreen(page, `customer-created-text-me-kept-${lang}`);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
  const tk = (await t.request('POST', '/v1/tickets', { key: biz.testKey, body: {} })).body;
  const { ctx, page } = await open(tk.url, 'en', { js: false });
  await assertFinished(page, 'en');
  assert.deepEqual(await visibleActions(page), ['Text me', 'Refresh']);
  await checkScreen(page, 'customer-created-text-me-en-nojs', { js: false });
  await ctx.close();
});

test('without JavaScript: complete, a refresh button instead of live updates, forms that work', async () => {
  const tk = await create();
  const { ctx, page } = await open(tk.url, 'en', { js: false });
  await assertFinished(page, 'en');
  assert.deepEqual(await visibleActions(page), ['Refresh'], '"Alert me" needs script: not offered; a refresh button is');
  await checkScreen(page, 'customer-created-en-nojs', { js: false });
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  await page.click('.refresh a');
  await page.waitForSelector('html[data-state="ready"]');
  assert.deepEqual(await visibleActions(page), ['On my way', 'Need 5 more minutes', 'Refresh']);
  await checkScreen(page, 'customer-ready-en-nojs', { js: false });
  await page.click('text=On my way');
  await page.waitForSelector('html[data-state="acknowledged"]');
  assert.deepEqual(await visibleActions(page), ['Refresh']);
  await ctx.close();
});

test('expired, in English and Arabic', async () => {
  const tickets = [await create(), await create()];
  clock.advance(13 * 60 * 60 * 1000);
  assert.ok((await t.app.maintenance.expireDue()) >= 2);
  for (const [i, lang] of (['en', 'ar'] as const).entries()) {
    const { ctx, page } = await open(tickets[i]!.url, lang);
    assert.equal(await page.getAttribute('html', 'data-state'), 'expired');
    await assertFinished(page, lang);
    assert.deepEqual(await visibleActions(page), []);
    await checkScreen(page, `customer-expired-${lang}`);
    await ctx.close();
  }
});
