// What the customer page and the display board show beyond the ticket itself (issue 19): the
// shop's name, the board's clock and sound control, room for 30 ready numbers, and eight
// languages, Arabic right to left, chosen by the browser or the branch, the board's voice too.
// One engine: what the pages show around the ticket is rendering; the reads behind it are tested on both engines elsewhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { openBoard, openPage, pathOf } from '../helpers/live.ts';
import { customerTexts } from '../../src/i18n/customer-texts.ts';
import { boardTexts } from '../../src/i18n/board-texts.ts';
import { SUPPORTED_LANGUAGES } from '../../src/domain/branch-settings.ts';

const SHOP = 'Café Zoë & Co — Quai <Ouest>';
let t: TestApp;
const clock = new FakeClock(Date.parse('2026-11-22T12:34:00.000Z'));
before(async () => {
  t = await startTestApp({ clock, env: { RING_DEADLINE_MS: '300' } });
  const r = await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { name: SHOP, timezone: 'Asia/Tokyo' } });
  assert.equal(r.status, 200, r.text);
  t.app.live.data.branchChanged(t.tenant.branchId);
});
after(() => t.close());

const esc = (s: string) => s.replace(/&/g, '&#38;').replace(/</g, '&#60;').replace(/>/g, '&#62;');
const create = async () => (await t.request('POST', '/v1/tickets', { body: {} })).body;
const html = async (url: string, lang = 'en') => (await fetch(t.url + pathOf(url), { headers: { 'accept-language': lang } })).text();
const setLanguages = async (page: string, voice: string) => {
  const r = await t.request('PATCH', '/v1/branch', {
    key: t.tenant.liveKey,
    body: { customer_page: { language: page }, voice: { language: voice } },
  });
  t.app.live.data.branchChanged(t.tenant.branchId);
  return r;
};

test("the customer page names the shop: on the page, in the tab's title and in every live snapshot", async () => {
  const tk = await create();
  const body = await html(tk.url);
  assert.match(body, new RegExp(`<span id="shop">${esc(SHOP)}</span>`));
  assert.match(body, new RegExp(`<title>Order ${tk.display_number} · ${esc(SHOP)}</title>`));
  const page = await openPage(t, tk.url);
  assert.equal(page.snapshot.shop, SHOP);
  assert.equal(page.snapshot.title, `Order ${tk.display_number} · ${SHOP}`);
  page.close();
});

test('the customer page in each of the eight languages, Arabic laid out right to left', async () => {
  const tk = await create();
  for (const lang of SUPPORTED_LANGUAGES) {
    const body = await html(tk.url, `${lang};q=0.9`);
    const dir = lang === 'ar' ? ' dir="rtl"' : '';
    assert.match(body, new RegExp(`<html lang="${lang}"${dir} data-state="created">`), lang);
    assert.ok(body.includes(`<h1 id="heading">${esc(customerTexts(lang).t('heading.created'))}</h1>`), lang);
  }
});

test("the board shows the shop's name, a clock in the shop's time zone, and its sound control in the header", async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Counter TV', voice: true } })).body;
  const body = await html(d.url);
  const header = /<header class="bar">([\s\S]*?)<\/header>/.exec(body)?.[1] ?? '';
  assert.ok(header.includes(`<h1 id="shop" class="shop">${esc(SHOP)}</h1>`), 'the shop name heads the board');
  assert.match(header, /<time id="clock" class="clock">21:34<\/time>/, '12:34 UTC is 21:34 in Tokyo');
  assert.match(header, /<button type="button" id="sound">/, 'the sound button sits in the header, beside the clock, not over a panel');
  assert.match(header, /id="sound-on"[^>]*role="status"/, 'and so does the "sound on" state');
  assert.match(body, /data-tz="Asia\/Tokyo"/);
  const board = await openBoard(t, d.url);
  assert.deepEqual([board.snapshot.shop, board.snapshot.timezone], [SHOP, 'Asia/Tokyo']);
  board.close();
});

test('the board has room for 30 ready numbers, newest first', async () => {
  assert.equal((await t.request('POST', '/v1/queues', { body: { name: 'Busy' } })).status, 201);
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Busy TV', queues: ['Busy'] } })).body;
  const numbers: string[] = [];
  for (let i = 0; i < 32; i++) {
    const tk = (await t.request('POST', '/v1/tickets', { body: { queue: 'Busy' } })).body;
    clock.advance(1000);
    await t.request('POST', `/v1/tickets/${tk.id}/ready`);
    numbers.push(tk.display_number);
  }
  const board = await openBoard(t, d.url);
  assert.deepEqual(
    board.snapshot.ready.map((r: { number: string }) => r.number),
    numbers.reverse().slice(0, 30),
  );
  board.close();
});

test('a branch may choose any of the eight languages; the board reads and speaks it', async () => {
  try {
    const bad = await setLanguages('xx', 'en');
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail ?? JSON.stringify(bad.body), /en, fr, es, de, it, pt, nl, ar/);
    for (const [lang, speech] of [
      ['it', 'it-IT'],
      ['pt', 'pt-PT'],
      ['nl', 'nl-NL'],
      ['ar', 'ar-SA'],
    ] as const) {
      assert.equal((await setLanguages(lang, lang)).status, 200, lang);
      const d = (await t.request('POST', '/v1/displays', { body: { name: `TV ${lang}`, voice: true } })).body;
      const body = await html(d.url, 'en');
      assert.match(
        body,
        new RegExp(`<html lang="${lang}"${lang === 'ar' ? ' dir="rtl"' : ''}>`),
        'the board follows the branch, not the TV browser',
      );
      assert.ok(body.includes(`<h2 id="t-ready">${esc(boardTexts(lang).t('ready'))}</h2>`));
      const board = await openBoard(t, d.url);
      const tk = await create();
      await t.request('POST', `/v1/tickets/${tk.id}/ready`);
      const a = await board.next('announce');
      assert.equal(a.data.speech_lang, speech);
      assert.equal(
        a.data.speech,
        boardTexts(lang)
          .t('callout', { number: tk.display_number.replace('-', ' ') })
          .replace(/[\u2068\u2069]/g, ''),
      );
      board.close();
      assert.match(await html(tk.url, 'ja'), new RegExp(`<html lang="${lang}"`), 'the customer page falls back to the branch language');
    }
  } finally {
    await setLanguages('en', 'en');
  }
});
