// The display board as a room sees it: on a 1080p TV and at 1280×720, with few and with 30 ready
// numbers, in Arabic (right to left); a screenshot of each under test-artifacts/screenshots/,
// axe-core (WCAG 2.2 A/AA) on each with no violation, and the layout facts that make it readable
// across a room measured: the numbers' size, that all of them fit, that the sound control and
// the shop's name and clock never cover a panel, and that a call flashes in step with the chime.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { pathOf } from '../helpers/live.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { box, checkScreen, inside, intersects, TABLET, TV_1080, TV_720 } from '../helpers/screens.ts';

const SHOP = 'Demo Café — Main Street';
let t: TestApp;
let browser: Browser;
const clock = new FakeClock();
before(async () => {
  t = await startTestApp({ clock, env: { RING_DEADLINE_MS: '300' } });
  browser = await launchChromium();
  assert.equal((await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { name: SHOP } })).status, 200);
  t.app.live.data.branchChanged(t.tenant.branchId);
});
after(async () => {
  await browser?.close();
  await t?.close();
});

// Headless Chromium has no voices: this records what is said, and when the chime starts and
// when a number starts flashing (this page's clock), to compare the two.
const RECORD = () => {
  const w = window as unknown as {
    __spoken: Array<{ text: string; lang: string }>;
    __chimeAt: number[];
    __flashAt: Array<{ n: string; at: number }>;
  };
  w.__spoken = [];
  w.__chimeAt = [];
  w.__flashAt = [];
  const synth = {
    speak(u: SpeechSynthesisUtterance) {
      if (u.text) w.__spoken.push({ text: u.text, lang: u.lang });
    },
    getVoices() {
      return [];
    },
    cancel() {},
    pause() {},
    resume() {},
    speaking: false,
    pending: false,
    paused: false,
    onvoiceschanged: null,
    addEventListener() {},
    removeEventListener() {},
  };
  Object.defineProperty(window, 'speechSynthesis', { value: synth, configurable: true });
  const create = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function (this: AudioContext) {
    w.__chimeAt.push(performance.now());
    return create.call(this);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target as HTMLElement;
      if (r.attributeName === 'class' && el.tagName === 'LI' && el.classList.contains('flash'))
        w.__flashAt.push({ n: el.textContent!, at: performance.now() });
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['class'] });
};

const create = async () => (await t.request('POST', '/v1/tickets', { body: {} })).body;
const ready = async (id: string) => {
  clock.advance(1000);
  assert.equal((await t.request('POST', `/v1/tickets/${id}/ready`)).status, 200);
};

/** `close` fails the test if the board's script threw meanwhile, then closes the browser context. */
async function openBoard(url: string, device: object): Promise<{ ctx: BrowserContext; page: Page; close: () => Promise<void> }> {
  const ctx = await browser.newContext(device);
  await ctx.addInitScript(RECORD);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(t.url + pathOf(url));
  await page.waitForSelector('html[data-live="on"]');
  const close = async (): Promise<void> => {
    assert.deepEqual(errors, [], 'no script error on the board');
    await ctx.close();
  };
  return { ctx, page, close };
}

const fontPx = (page: Page, selector: string) => page.$eval(selector, (el) => parseFloat(getComputedStyle(el).fontSize));

/** Every number of `list` is whole on screen, inside its panel. */
async function allFit(page: Page, list: string, count: number): Promise<void> {
  // The board fits its lists from a ResizeObserver, which runs in the frame after a resize: measure
  // after two frames, not in between (a wait on the font size alone can be true before the re-fit).
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const viewport = page.viewportSize()!;
  const screen = { x: 0, y: 0, width: viewport.width, height: viewport.height };
  const panel = await box(page, list);
  const items = await page.$$eval(`${list} li`, (els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
  assert.equal(items.length, count);
  for (const [i, b] of items.entries()) {
    assert.ok(inside(b, panel), `${list} number ${i + 1} lies inside its panel`);
    assert.ok(inside(b, screen), `${list} number ${i + 1} is on screen`);
  }
}

/** The header: the shop's name and a clock shown, the sound control clear of both panels. */
async function assertHeader(page: Page): Promise<void> {
  assert.ok(await page.isVisible('#shop'));
  assert.equal(await page.textContent('#shop'), SHOP);
  assert.match((await page.textContent('#clock')) ?? '', /^\d\d:\d\d/);
  for (const control of ['#sound', '#sound-on']) {
    if (!(await page.isVisible(control))) continue;
    const sound = await box(page, control);
    for (const panel of ['.ready', '.prep']) assert.ok(!intersects(sound, await box(page, panel)), `${control} stays clear of ${panel}`);
  }
  for (const panel of ['.ready', '.prep']) assert.ok(!intersects(await box(page, '#shop'), await box(page, panel)));
}

test('few ready on a 1080p TV: the numbers take most of the height; shop, clock and sound state in the header; a call flashes with the chime', async (tc) => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Counter TV', voice: true } })).body;
  const empty = await openBoard(d.url, TV_720);
  assert.ok(await empty.page.isVisible('#ready-empty'), 'an empty Ready panel says where numbers will appear');
  await assertHeader(empty.page);
  await checkScreen(empty.page, 'board-empty-720p');
  await empty.close();
  const waiting = [await create(), await create(), await create(), await create()];
  const done = [await create(), await create(), await create()];
  for (const tk of done) await ready(tk.id);
  const { page, close } = await openBoard(d.url, TV_1080);
  await assertHeader(page);
  assert.ok(await page.isVisible('#sound'), 'until a tap, the board offers to turn sound and voice on');
  assert.ok(
    (await fontPx(page, '#ready li')) > 0.25 * 1080,
    `3 ready numbers are over a quarter of the screen high (${await fontPx(page, '#ready li')}px)`,
  );
  tc.diagnostic(
    `1080p, 3 ready: ${await fontPx(page, '#ready li')}px (${Math.round((await fontPx(page, '#ready li')) / 10.8)}% of the height)`,
  );
  await allFit(page, '#ready', 3);
  await allFit(page, '#preparing', waiting.length);
  await checkScreen(page, 'board-few-1080p-sound-off');

  await page.click('#sound');
  assert.ok(await page.isVisible('#sound-on'), 'once on, the board says so');
  assert.ok(!(await page.isVisible('#sound')));
  await assertHeader(page);

  const called = await create();
  await ready(called.id);
  await page.waitForFunction(() => (window as unknown as { __spoken: unknown[] }).__spoken.length > 0);
  const timing = await page.evaluate(() => {
    const w = window as unknown as { __chimeAt: number[]; __flashAt: Array<{ n: string; at: number }> };
    return { chime: w.__chimeAt[0], flash: w.__flashAt.filter((f) => f.at >= w.__chimeAt[0]! - 1000) };
  });
  assert.ok(timing.chime !== undefined, 'the chime played');
  const flash = timing.flash.find((f) => f.n === called.display_number);
  assert.ok(flash, 'the called number flashed');
  assert.ok(Math.abs(flash.at - timing.chime!) < 100, `the flash starts with the chime (${Math.round(flash.at - timing.chime!)} ms apart)`);
  tc.diagnostic(`flash vs chime: ${(flash.at - timing.chime!).toFixed(1)} ms`);
  assert.equal(await page.textContent('#ready li:first-child'), called.display_number, 'the newest call comes first');
  assert.deepEqual(await page.$$eval('#ready li.new', (els) => els.map((e) => e.textContent)), [
    called.display_number,
    ...done.map((x) => x.display_number).reverse(),
  ]);
  assert.ok((await fontPx(page, '#ready li')) > 0.2 * 1080, 'four ready numbers are still a fifth of the screen high');
  await checkScreen(page, 'board-few-1080p');

  await page.setViewportSize(TV_720.viewport);
  await page.waitForFunction(() => parseFloat(getComputedStyle(document.querySelector('#ready li')!).fontSize) < 0.3 * 720);
  await assertHeader(page);
  assert.ok((await fontPx(page, '#ready li')) > 0.2 * 720);
  await allFit(page, '#ready', 4);
  await checkScreen(page, 'board-few-720p');

  await page.setViewportSize(TABLET.viewport);
  await page.waitForFunction(() => parseFloat(getComputedStyle(document.querySelector('#ready li')!).fontSize) < 0.3 * 768);
  await assertHeader(page);
  await allFit(page, '#ready', 4);
  await checkScreen(page, 'board-few-tablet');
  await close();
  for (const tk of [...waiting, ...done, called]) await t.request('POST', `/v1/tickets/${tk.id}/cancel`);
});

test('30 ready, 40 preparing, the missed list and a message: every number fits, still readable, at 1080p and 720p', async (tc) => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Busy TV', voice: false } })).body;
  const missed = [await create(), await create()];
  for (const tk of missed) await ready(tk.id);
  for (let i = 0; i < 2; i++) {
    clock.advance(11_000);
    for (const tk of missed) assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/ring`)).status, 200);
  }
  for (let i = 0; i < 27; i++) await ready((await create()).id);
  clock.advance(5 * 60_000);
  for (let i = 0; i < 3; i++) await ready((await create()).id);
  for (let i = 0; i < 40; i++) await create();
  await t.request('POST', '/v1/announcements', { body: { message: 'Kitchen running 10 minutes late' } });

  const { page, close } = await openBoard(d.url, TV_1080);
  assert.ok(!(await page.isVisible('#sound')), 'a board without voice offers no sound');
  assert.ok(await page.isVisible('#missed-box'));
  assert.equal(await page.$$eval('#missed li', (els) => els.length), 2);
  assert.ok(await page.isVisible('#ann'));
  for (const [device, name] of [
    [TV_1080, 'board-many-1080p'],
    [TV_720, 'board-many-720p'],
  ] as const) {
    await page.setViewportSize(device.viewport);
    await page.waitForFunction(
      (h) => parseFloat(getComputedStyle(document.querySelector('#ready li')!).fontSize) < 0.2 * h,
      device.viewport.height,
    );
    await allFit(page, '#ready', 30);
    await allFit(page, '#preparing', 40);
    const size = await fontPx(page, '#ready li');
    // On a 55" 1080p TV, 7% of the height is 4.8 cm: letters about 3.4 cm high, readable at 6 m.
    assert.ok(size > 0.07 * device.viewport.height, `30 ready numbers stay large (${size}px at ${device.viewport.height}px)`);
    tc.diagnostic(
      `${device.viewport.height}p, 30 ready: ${size}px (${((size / device.viewport.height) * 100).toFixed(1)}% of the height); preparing ${await fontPx(page, '#preparing li')}px`,
    );
    assert.equal(await page.$$eval('#ready li.new', (els) => els.length), 3, 'only the newest calls are highlighted');
    await assertHeader(page);
    await checkScreen(page, name);
  }
  await close();
});

test('in Arabic, right to left, the board speaks the number in Arabic', async () => {
  const patched = await t.request('PATCH', '/v1/branch', {
    key: t.tenant.liveKey,
    body: { customer_page: { language: 'ar' }, voice: { language: 'ar' } },
  });
  assert.equal(patched.status, 200, patched.text);
  t.app.live.data.branchChanged(t.tenant.branchId);
  try {
    const d = (await t.request('POST', '/v1/displays', { body: { name: 'شاشة', voice: true } })).body;
    const { page, close } = await openBoard(d.url, TV_1080);
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    assert.equal(await page.getAttribute('html', 'lang'), 'ar');
    assert.equal(await page.textContent('#t-ready'), 'جاهز');
    await page.click('#sound');
    const tk = await create();
    await ready(tk.id);
    await page.waitForFunction(() => (window as unknown as { __spoken: unknown[] }).__spoken.length > 0);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __spoken: unknown[] }).__spoken), [
      { text: `الرقم ${tk.display_number.replace('-', ' ')}`, lang: 'ar-SA' },
    ]);
    const prep = await box(page, '.prep');
    const readyPanel = await box(page, '.ready');
    assert.ok(prep.x > readyPanel.x, 'right to left: "Preparing" is read first, on the right');
    await assertHeader(page);
    await checkScreen(page, 'board-ar-1080p');
    await close();
  } finally {
    await t.request('PATCH', '/v1/branch', {
      key: t.tenant.liveKey,
      body: { customer_page: { language: 'en' }, voice: { language: 'en' } },
    });
    t.app.live.data.branchChanged(t.tenant.branchId);
  }
});
