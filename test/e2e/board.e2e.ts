// The display board in a real browser with a recording speechSynthesis: a ready ticket is
// spoken in the branch's language, and the API reports call_out_loud only when such a board is
// connected.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pathOf } from '../helpers/live.ts';
import { eventually } from '../helpers/eventually.ts';
import { ARTIFACTS, launchChromium } from '../helpers/chromium.ts';
import { presenceScopes } from '../../src/realtime/presence.ts';

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

// Headless Chromium has no voices; this stands in for speechSynthesis and records what is said.
const RECORD_SPEECH = () => {
  const w = window as unknown as { __spoken: Array<{ text: string; lang: string }> };
  w.__spoken = [];
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
};

const spoken = (page: Page) => page.evaluate(() => (window as unknown as { __spoken: Array<{ text: string; lang: string }> }).__spoken);

test('a voice-on board speaks the ready number; the API says call_out_loud', async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Counter TV', queues: ['A'], voice: true } })).body;
  const waiting = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await ctx.addInitScript(RECORD_SPEECH);
  const page = await ctx.newPage();
  await page.goto(t.url + pathOf(d.url));
  await page.click('#sound');
  await page.waitForSelector('html[data-live="on"]');

  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  assert.equal(ready.body.call_out_loud, true);
  await page.waitForFunction(() => (window as unknown as { __spoken: unknown[] }).__spoken.length > 0);
  assert.deepEqual(await spoken(page), [{ text: `Number ${tk.display_number.replace('-', ' ')}`, lang: 'en-GB' }]);
  await page.waitForSelector(`#ready li.new:text("${tk.display_number}")`);
  assert.match((await page.textContent('#preparing')) ?? '', new RegExp(waiting.display_number));
  await t.request('POST', '/v1/announcements', { body: { message: 'Kitchen running 10 minutes late' } });
  await page.waitForSelector('#ann:not([hidden])');
  await page.screenshot({ path: path.join(ARTIFACTS, 'board.png') });

  const patched = await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { voice: { language: 'fr' } } });
  assert.equal(patched.status, 200);
  const fr = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  assert.equal((await t.request('POST', `/v1/tickets/${fr.id}/ready`)).body.call_out_loud, true);
  await page.waitForFunction(() => (window as unknown as { __spoken: unknown[] }).__spoken.length > 1);
  assert.deepEqual((await spoken(page))[1], { text: `Numéro ${fr.display_number.replace('-', ' ')}`, lang: 'fr-FR' });
  await ctx.close();
  await t.request('DELETE', `/v1/displays/${d.id}`);
});

test('with no board connected, call_out_loud is false', async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Closed TV' } })).body;
  const ctx = await browser.newContext();
  await ctx.addInitScript(RECORD_SPEECH);
  const page = await ctx.newPage();
  await page.goto(t.url + pathOf(d.url));
  await page.waitForSelector('html[data-live="on"]');
  await ctx.close();
  await eventually(
    async () => (await t.app.live.presence.members(presenceScopes.board(t.tenant.branchId, 'test'))).length === 0,
    'the board to leave',
  );
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  assert.equal(ready.body.call_out_loud, false);
});

test('a board whose sound was never turned on is not counted as calling out', async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Muted TV' } })).body;
  const ctx = await browser.newContext();
  await ctx.addInitScript(RECORD_SPEECH);
  const page = await ctx.newPage();
  await page.goto(t.url + pathOf(d.url));
  await page.waitForSelector('html[data-live="on"]');
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  assert.equal(ready.body.call_out_loud, false);
  assert.deepEqual(await spoken(page), []);
  await ctx.close();
});
