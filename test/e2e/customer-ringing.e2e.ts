// The ringing number is the biggest thing on the customer page and grows when it rings (issue 36
// item 9: a later rule made it shrink, 112 px waiting to 93.6 px ringing at 390 px wide), and the
// flash is yellow most of each second (it was white half of it). Measured in a real browser on a
// phone-sized viewport: computed font sizes, and the body's background sampled along its animation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pathOf } from '../helpers/live.ts';
import { launchChromium, PHONE } from '../helpers/chromium.ts';

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

/** The number's font size, and the largest of every other visible element with text of its own. */
const sizes = (page: Page): Promise<{ num: number; others: number }> =>
  page.evaluate(() => {
    const px = (e: Element): number => Number.parseFloat(getComputedStyle(e).fontSize);
    const num = document.querySelector('#num')!;
    let others = 0;
    for (const e of document.body.querySelectorAll('*')) {
      if (e === num || num.contains(e) || e.closest('[hidden]') !== null) continue;
      const ownText = [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '');
      if (ownText && (e as HTMLElement).offsetParent !== null) others = Math.max(others, px(e));
    }
    return { num: px(num), others };
  });

test('at 390 px wide the number grows when it rings, stays the biggest thing on the page, and the flash is mostly yellow', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const ctx = await browser.newContext({ ...PHONE, locale: 'en-GB' });
  try {
    const page = await ctx.newPage();
    await page.goto(t.url + pathOf(tk.url));
    await page.waitForSelector('html[data-live="on"]');
    const waiting = await sizes(page);
    assert.ok(waiting.num > 2 * waiting.others, `waiting: the number (${waiting.num} px) dwarfs the rest (${waiting.others} px)`);

    assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/ready`)).status, 200);
    await page.waitForSelector('html[data-ringing][data-state="ready"]');
    const ringing = await sizes(page);
    assert.ok(ringing.num > waiting.num, `ringing ${ringing.num} px, waiting ${waiting.num} px: the number grows`);
    assert.ok(ringing.num > 2 * ringing.others, `ringing: the number (${ringing.num} px) is the biggest thing (${ringing.others} px)`);
    const fits = await page.evaluate(() => {
      const num = document.querySelector('#num')!;
      return num.scrollWidth <= document.documentElement.clientWidth;
    });
    assert.ok(fits, 'the bigger number still fits the width');

    // The body's flash, sampled at 100 points of one cycle: how much of it is nearer white than yellow.
    const whiteShare = await page.evaluate(() => {
      const flash = document.getAnimations().find((a) => (a.effect as KeyframeEffect | null)?.target === document.body)!;
      const cycle = Number(flash.effect!.getComputedTiming().duration);
      flash.pause();
      let white = 0;
      for (let i = 0; i < 100; i++) {
        flash.currentTime = (cycle * i) / 100;
        const blue = Number(/rgba?\(\d+, \d+, (\d+)/.exec(getComputedStyle(document.body).backgroundColor)![1]);
        if (blue > 132) white++;
      }
      return white / 100;
    });
    assert.ok(whiteShare <= 0.2, `white ${Math.round(whiteShare * 100)}% of each flash`);
  } finally {
    await ctx.close();
  }
});
