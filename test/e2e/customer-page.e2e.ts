// The customer page in a real browser (Debian's Chromium): open the link, mark the ticket ready
// through the API, and the page rings; the API says it reached the page. The page installs to the
// Home Screen (a manifest the browser accepts, a service worker), and on an iPhone "Alert me"
// explains how instead of asking for push, which Safari gives only to home-screen pages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, devices, type Browser, type BrowserContext } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pathOf } from '../helpers/live.ts';
import { ARTIFACTS, CHROMIUM_ARGS, chromiumPath, launchChromium, PHONE } from '../helpers/chromium.ts';

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
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
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
  assert.match((await page.textContent('h1')) ?? '', /Your order is ready!/);
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
  assert.match((await page.textContent('#detail')) ?? '', /Nous vous rappellerons à \d\d:\d\d/);
  await ctx.close();
});

test('without JavaScript the page still shows the status and the buttons work', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  const ctx = await browser.newContext({ ...PHONE, javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto(t.url + pathOf(tk.url));
  assert.match((await page.textContent('h1')) ?? '', /Your order is ready!/);
  await page.click('text=On my way');
  await page.waitForURL(t.url + pathOf(tk.url));
  assert.match((await page.textContent('h1')) ?? '', /See you at the counter/);
  await ctx.close();
});

test('installable: Chromium accepts the manifest and its icons, finds nothing against installing, and the service worker registers', async () => {
  assert.equal((await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { name: 'Kiosque du Parc' } })).status, 200);
  t.app.live.data.branchChanged(t.tenant.branchId);
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  // A profile on disk: Chromium never offers to install from an incognito context, which is what
  // browser.newContext() makes.
  const profile = mkdtempSync(path.join(tmpdir(), 'readybell-profile-'));
  let ctx: BrowserContext | null = null;
  try {
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath(),
      headless: true,
      args: CHROMIUM_ARGS,
      ...PHONE,
      locale: 'en-GB',
    });
    const page = await ctx.newPage();
    await page.goto(t.url + pathOf(tk.url));
    const sw = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      return { scope: reg.scope, script: reg.active?.scriptURL ?? null };
    });
    assert.deepEqual(sw, { scope: `${t.url}/t/`, script: `${t.url}/sw.js` }, 'the service worker is active over every ticket page');

    const cdp = await ctx.newCDPSession(page);
    const got = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[]; manifest?: any };
    assert.deepEqual(got.errors, [], 'the manifest parses without error or warning');
    const m = got.manifest;
    assert.equal(m.name, `Order ${tk.display_number} · Kiosque du Parc`);
    assert.equal(m.display, 'kStandalone');
    assert.equal(m.startUrl, t.url + pathOf(tk.url), 'start_url reopens this ticket');
    assert.ok(m.startUrl.startsWith(m.scope), `start_url ${m.startUrl} within scope ${m.scope}`);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, [], 'nothing stops Chromium from installing the page');

    // Each icon as the browser fetches and decodes it.
    const icons = await page.evaluate(
      async (list: Array<{ url: string; type: string }>) =>
        Promise.all(
          list.map(async (i) => {
            const res = await fetch(i.url);
            const bitmap = await createImageBitmap(await res.blob());
            return { type: res.headers.get('content-type'), size: `${bitmap.width}x${bitmap.height}` };
          }),
        ),
      (m.icons as Array<{ url: string; type: string }>).filter((i) => i.type === 'image/png'),
    );
    assert.deepEqual(icons, [
      { type: 'image/png', size: '192x192' },
      { type: 'image/png', size: '512x512' },
    ]);
  } finally {
    await ctx?.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

/** Counts what "Alert me" asks of the browser: notification permission and a screen wake lock. */
async function watchAlertMe(ctx: BrowserContext): Promise<void> {
  await ctx.addInitScript(() => {
    const calls = { permission: 0, wakeLock: 0 };
    (window as unknown as { calls: typeof calls }).calls = calls;
    if ('Notification' in window)
      Notification.requestPermission = async () => {
        calls.permission++;
        return 'denied';
      };
    Object.defineProperty(navigator, 'wakeLock', {
      value: {
        request: async () => {
          calls.wakeLock++;
          return { release: async () => {} };
        },
      },
    });
  });
}

test('on an iPhone in Safari, "Alert me" explains the two taps to the Home Screen instead of asking for push, and the open page still rings', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const ctx = await browser.newContext({ ...PHONE, userAgent: devices['iPhone 15']!.userAgent, locale: 'en-US' });
  await watchAlertMe(ctx);
  const page = await ctx.newPage();
  const pushRequests: string[] = [];
  // The server key and the subscription's POST, not the script that defines them.
  page.on('request', (r) => {
    if (/\/push(\/|$)/.test(new URL(r.url()).pathname)) pushRequests.push(r.url());
  });
  await page.goto(t.url + pathOf(tk.url));
  await page.waitForSelector('html[data-live="on"]');
  await page.click('#alert');
  await page.waitForSelector('#ios:not([hidden])');
  assert.match((await page.textContent('#ios')) ?? '', /Tap Share[\s\S]*Add to Home Screen[\s\S]*keep this page open/);
  assert.equal(
    await page.evaluate(() => document.activeElement?.id),
    'ios-h',
    'the explanation takes the focus, so a screen reader reads it',
  );
  assert.deepEqual(
    await page.evaluate(() => (window as any).calls),
    { permission: 0, wakeLock: 1 },
    'no push prompt; the screen is kept on',
  );
  assert.deepEqual(pushRequests, [], 'no push subscription is attempted');

  const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [true, 'page'], 'meanwhile the open page is reached');
  await page.waitForSelector('html[data-ringing][data-state="ready"]');
  await ctx.close();
});

test('elsewhere the same tap asks for push, and shows no iPhone explanation', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const ctx = await browser.newContext({ ...PHONE });
  await watchAlertMe(ctx);
  const page = await ctx.newPage();
  await page.goto(t.url + pathOf(tk.url));
  await page.click('#alert');
  await page.waitForFunction(() => (window as any).calls.permission === 1);
  assert.ok(await page.isVisible('#alert-on'));
  assert.ok(await page.isHidden('#ios'));
  await ctx.close();
});

test('"Text me" where a business branch asks for a phone number: a refused number is said beside the field, a kept one shown only masked; the same without script', async () => {
  const biz = await t.newTenant({ plan: 'business' });
  assert.equal((await t.request('PATCH', '/v1/branch', { key: biz.liveKey, body: { customer_page: { phone_entry: true } } })).status, 200);
  t.app.live.data.branchChanged(biz.branchId);
  const tk = (await t.request('POST', '/v1/tickets', { key: biz.testKey, body: {} })).body;
  const ctx = await browser.newContext({ ...PHONE, locale: 'en-GB' });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(t.url + pathOf(tk.url));
  await page.waitForSelector('html[data-live="on"]');
  await page.fill('#phone', '07400 123456');
  await page.click('#phone-form button');
  await page.waitForSelector('#phone-error:not([hidden])');
  assert.equal(await page.textContent('#phone-error'), 'Please start the number with + and your country code.');
  assert.equal(await page.getAttribute('#phone', 'aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'phone', 'back in the field to correct it');
  assert.equal(page.url(), t.url + pathOf(tk.url), 'the page stayed (alerts it unlocked stay on)');

  await page.fill('#phone', '+44 7400 123456');
  await page.click('#phone-form button');
  await page.waitForSelector('#phone-on:not([hidden])');
  assert.equal(await page.textContent('#phone-on'), 'Texts for this order go to +44\u00a0••••\u00a0•••456.');
  assert.ok(await page.isHidden('#phone-error'));
  assert.equal(await page.inputValue('#phone'), '', 'the number is not left on the screen');
  assert.equal(await page.getAttribute('#phone', 'aria-invalid'), null);
  const got = (await t.request('GET', `/v1/tickets/${tk.id}`, { key: biz.testKey })).body;
  assert.equal(got.customer.notifications, 'sms');
  assert.deepEqual(errors, []);
  await ctx.close();

  const other = (await t.request('POST', '/v1/tickets', { key: biz.testKey, body: {} })).body;
  const noJs = await browser.newContext({ ...PHONE, javaScriptEnabled: false });
  const plain = await noJs.newPage();
  await plain.goto(t.url + pathOf(other.url));
  await plain.fill('#phone', 'not a number');
  await plain.click('#phone-form button');
  await plain.waitForSelector('#phone-error:not([hidden])');
  assert.equal(await plain.textContent('#phone-error'), 'This is not a valid mobile number. Please check it.');
  await plain.fill('#phone', '+1 415 555 0123');
  await plain.click('#phone-form button');
  await plain.waitForURL(t.url + pathOf(other.url));
  assert.equal(await plain.textContent('#phone-on'), 'Texts for this order go to +1\u00a0•••\u00a0•••\u00a0•123.');
  assert.ok(await plain.isHidden('#phone-error'));
  await noJs.close();
});
