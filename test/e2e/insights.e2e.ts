// The Insights screen in Chromium (issue 17): a café's two weeks of tickets made through the API with
// a fake clock (customers who turn on notifications or keep the page open, "On my way", snoozes,
// recalls, cancellations, no-shows), then the screen on a 10-inch tablet: today against the same
// weekday last week, the period's charts drawn by Chart.js, each with its table; 0 axe (WCAG 2.2
// AA) violations; live when a ticket is created; the CSV download. The screenshots are kept as
// test-artifacts/screenshots/staff-insights-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { keepScreen, openStaffPage, SCREENSHOTS, SIZES } from '../helpers/staff-page.ts';

const clock = new FakeClock(Date.now());
let t: TestApp;
let browser: Browser;
let key: string;
let zone: string;

/** A zone where it is mid-afternoon now, so that "today" has its morning and lunch whenever the test runs. */
function afternoonZone(now: number): string {
  const zones = [
    'Pacific/Honolulu',
    'America/Anchorage',
    'America/Los_Angeles',
    'America/Denver',
    'America/Chicago',
    'America/New_York',
    'America/Halifax',
    'America/Sao_Paulo',
    'Atlantic/South_Georgia',
    'Atlantic/Azores',
    'Europe/London',
    'Europe/Paris',
    'Europe/Athens',
    'Europe/Moscow',
    'Asia/Dubai',
    'Asia/Karachi',
    'Asia/Dhaka',
    'Asia/Bangkok',
    'Asia/Singapore',
    'Asia/Tokyo',
    'Australia/Brisbane',
    'Pacific/Noumea',
    'Pacific/Auckland',
  ];
  const hourIn = (z: string) => Number(new Intl.DateTimeFormat('en-GB', { timeZone: z, hour: '2-digit', hourCycle: 'h23' }).format(now));
  return zones.reduce((best, z) => (Math.abs(hourIn(z) - 15) < Math.abs(hourIn(best) - 15) ? z : best));
}

/** Deterministic dice, so every run seeds the same week. */
function dice(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

async function api(method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown): Promise<any> {
  const res = await t.app.server.inject({
    method,
    url,
    payload: body === undefined ? undefined : JSON.stringify(body),
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }),
    },
  });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body === '' ? undefined : res.json();
}

type Step = { at: number; run: () => Promise<unknown> };

/**
 * Two weeks up to now (a week, and the one it is compared with): 8:00 to 20:00 in the branch's zone, busier at lunch and in the evening and on
 * Friday and Saturday; each ticket's life as steps at their own instants, run in time order.
 */
function week(now: number, localHourStart: (daysAgo: number, hour: number) => number): Step[] {
  const roll = dice(17);
  const steps: Step[] = [];
  const shape = [2, 3, 4, 5, 9, 8, 4, 3, 3, 5, 7, 6]; // 8:00 … 19:00
  for (let daysAgo = 13; daysAgo >= 0; daysAgo--) {
    for (const [i, base] of shape.entries()) {
      const start = localHourStart(daysAgo, 8 + i);
      const weekday = new Date(start).getUTCDay();
      const n = Math.round(base * (weekday === 5 || weekday === 6 ? 1.4 : 1) * (0.7 + roll() * 0.6));
      // The board is on (and calls numbers out) most hours.
      if (roll() < 0.85) steps.push({ at: start, run: () => connectBoard() });
      for (let k = 0; k < n; k++) {
        const created = start + Math.floor(roll() * 3_600_000);
        if (created > now - 120_000) continue;
        const queue = roll() < 0.25 ? 'B' : 'A';
        // Whole milliseconds, as a real clock gives: PostgreSQL keeps times as BIGINT.
        const prep = Math.round((4 + roll() * 8 + (base >= 7 ? roll() * 8 : 0)) * 60_000);
        const reach = roll();
        const fate = roll();
        const answer = roll();
        const snoozes = answer >= 0.6 && answer < 0.68 && reach < 0.85;
        // A customer who asked for 5 more minutes takes them.
        const pickup = Math.round((snoozes ? 5.5 + roll() * 2 : 0.5 + roll() * roll() * 9) * 60_000);
        const life = { id: '' };
        steps.push({
          at: created,
          run: async () => {
            life.id = (await api('POST', '/v1/tickets', { queue, external_ref: `order-${created}` })).id;
          },
        });
        if (reach < 0.55)
          steps.push({ at: created + 30_000, run: () => api('POST', `/v1/test_helpers/tickets/${life.id}/customer/subscribe`) });
        else if (reach < 0.85)
          steps.push({
            at: created + 30_000,
            run: () => api('POST', `/v1/test_helpers/tickets/${life.id}/customer/open_page`, { minutes: 60 }),
          });
        if (fate < 0.04) {
          steps.push({
            at: created + 3 * 60_000,
            run: () => api('POST', `/v1/tickets/${life.id}/cancel`, { reason: 'changed their mind' }),
          });
          continue;
        }
        const ready = created + prep;
        if (ready > now - 60_000) continue;
        steps.push({ at: ready, run: () => api('POST', `/v1/tickets/${life.id}/ready`) });
        if (answer < 0.6 && reach < 0.85)
          steps.push({ at: ready + 20_000, run: () => api('POST', `/v1/test_helpers/tickets/${life.id}/customer/acknowledge`) });
        else if (snoozes)
          steps.push({ at: ready + 40_000, run: () => api('POST', `/v1/test_helpers/tickets/${life.id}/customer/snooze`, { minutes: 5 }) });
        else if (pickup > 4 * 60_000) steps.push({ at: ready + 3 * 60_000, run: () => api('POST', `/v1/tickets/${life.id}/ring`) });
        // A few never come: they expire an hour after they were created (the branch's setting).
        if (fate > 0.95 || ready + pickup > now - 30_000) continue;
        steps.push({ at: ready + pickup, run: () => api('POST', `/v1/tickets/${life.id}/collect`) });
      }
    }
  }
  return steps.sort((a, b) => a.at - b.at);
}

let display = '';
const connectBoard = () => api('POST', `/v1/test_helpers/displays/${display}/connect`, { minutes: 60 });

before(async () => {
  t = await startTestApp({ clock, env: { RATE_LIMIT_WRITES_BURST: '100000', RATE_LIMIT_READS_BURST: '100000' } });
  key = t.tenant.testKey;
  const now = Date.now();
  zone = afternoonZone(now);
  clock.set(now - 15 * 24 * 3600_000);
  // Branch settings are changed with the live key (PRODUCT.md §1); the rest is test data.
  key = t.tenant.liveKey;
  await api('PATCH', '/v1/branch', { name: 'Demo Café — Main Street', timezone: zone, expiry_hours: 1, voice: { enabled: true } });
  key = t.tenant.testKey;
  await api('POST', '/v1/queues', { name: 'B' });
  display = (await api('POST', '/v1/displays', { name: 'Counter TV' })).id;
  // The instant a local hour starts in the zone: found from how far its clock is from UTC now.
  const wall = new Date(new Date(now).toLocaleString('sv-SE', { timeZone: zone }).replace(' ', 'T') + 'Z').getTime();
  const offset = Math.round((wall - now) / 60_000) * 60_000;
  const localMidnight = Math.floor((now + offset) / 86_400_000) * 86_400_000 - offset;
  const steps = week(now, (daysAgo, hour) => localMidnight - daysAgo * 86_400_000 + hour * 3_600_000);
  let lastExpiry = 0;
  for (const step of steps) {
    clock.set(step.at);
    if (step.at - lastExpiry > 10 * 60_000) {
      await t.app.maintenance.expireDue();
      lastExpiry = step.at;
    }
    await step.run();
  }
  clock.set(Date.now());
  await t.app.maintenance.expireDue();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

async function openInsights(
  size: { viewport: { width: number; height: number } } & Record<string, unknown>,
): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  clock.set(Date.now());
  const { ctx, page, errors } = await openStaffPage(browser, t, { email: t.tenant.ownerEmail, password: t.tenant.ownerPassword }, size);
  await page.click('.mode-option-test');
  await page.waitForFunction(() => document.querySelector('.shell')?.classList.contains('shell-test'));
  await page.evaluate(() => {
    location.hash = '#/insights';
  });
  await page.waitForSelector('#insights-today .glance-card');
  await page.waitForSelector('.insights .connection-live');
  // Every chart drawn: Chart.js has sized each canvas to its box.
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('.chart canvas')].length === 4 &&
      [...document.querySelectorAll<HTMLCanvasElement>('.chart canvas')].every((c) => c.width > 0 && c.height > 0),
  );
  await page.evaluate(() => document.fonts.ready);
  return { page, errors, close: () => ctx.close() };
}

const glance = (page: Page, figure: string) => page.textContent(`#insights-today [data-figure="${figure}"] .glance-value`);

test("tablet: the Insights screen on a seeded week, as a screenshot, with 0 axe violations, live, with every chart's table", async () => {
  const { page, errors, close } = await openInsights({ viewport: { width: 1280, height: 800 } });
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(Date.now());
  const api7 = await api('GET', `/v1/insights?from=${today}&to=${today}&compare=week_before`);
  assert.ok(api7.figures.created > 10, `a seeded morning: ${api7.figures.created} tickets today`);
  assert.equal(await glance(page, 'created'), String(api7.figures.created), 'the screen shows what the API counts');
  assert.match(
    (await page.textContent('#insights-today [data-figure="created"] .glance-change'))!,
    /^((▲|▼) [+−][\d,.]+% \((better|worse)\)|same|nothing to compare) vs .+ \(\d+\)$/,
  );
  for (const id of ['chart-days', 'chart-hours', 'chart-heatmap', 'chart-reach']) {
    const label = await page.getAttribute(`#${id} canvas`, 'aria-label');
    assert.ok(label !== null && label.length > 30, `${id} says what it shows: ${label}`);
  }
  assert.match(
    (await page.textContent('#chart-reach .chart-reading'))!,
    /^[\d,]+ rings: \d+% by push notification, \d+% on an open page; boards called out \d+%\.$/,
  );

  const shot = await keepScreen(page, 'insights-tablet');
  assert.deepEqual(
    shot.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
  );
  await page.screenshot({ path: path.join(SCREENSHOTS, 'staff-insights-tablet-first-screen.png') });

  // Each chart's numbers as a table, a tap away.
  await page.click('#chart-heatmap summary');
  assert.equal(await page.locator('#chart-heatmap table tbody tr').count(), 7);
  await page.click('#chart-days summary');
  assert.equal(await page.locator('#chart-days table tbody tr').count(), 7);
  assert.deepEqual(
    (await keepScreen(page, 'insights-tables')).violations.map((v) => v.id),
    [],
  );

  // Live: a ticket created now is counted on the screen without a reload.
  const before = Number(await glance(page, 'created'));
  await t.request('POST', '/v1/tickets', { key, body: { queue: 'A' }, headers: { 'idempotency-key': randomUUID() } });
  await page.waitForFunction(
    (n) => document.querySelector('#insights-today [data-figure="created"] .glance-value')?.textContent === String(n),
    before + 1,
    { timeout: 15_000 },
  );

  // One queue.
  await page.selectOption('#insights-queue', 'B');
  const onlyB = await api('GET', `/v1/insights?from=${today}&to=${today}&compare=week_before&queue=B`);
  await page.waitForFunction(
    (n) => document.querySelector('#insights-today [data-figure="created"] .glance-value')?.textContent === String(n),
    onlyB.figures.created,
  );

  // The export, as the browser saves it.
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("Download the tickets (CSV)")')]);
  assert.match(file.suggestedFilename(), /^readybell-tickets-B-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv$/);
  const csv = readFileSync((await file.path())!, 'utf8');
  const rows = csv.trim().split('\r\n');
  assert.ok(rows.length > 10 && rows.slice(1).every((r) => r.split(',')[2] === 'B'), "queue B's tickets only");
  assert.deepEqual(errors, []);
  await close();
});

test('phone: the same screen in one column, still 0 axe violations', async () => {
  const { page, errors, close } = await openInsights(SIZES.phone);
  const shot = await keepScreen(page, 'insights-phone');
  assert.deepEqual(
    shot.violations.map((v) => v.id),
    [],
  );
  const widths = await page.$$eval('.chart', (els) => els.map((e) => e.getBoundingClientRect().width));
  assert.ok(
    widths.every((w) => w <= 360),
    `charts fit the phone: ${widths}`,
  );
  // The figures table keeps its column labels (a phone's card rows hid them) and its caption reads
  // on a line or two, not one word a line (issue 36 item 10).
  const table = await page.$eval('#insights-period-table', (el) => {
    const box = (e: Element) => e.getBoundingClientRect();
    const caption = el.querySelector('caption')!;
    const lineHeight =
      Number.parseFloat(getComputedStyle(caption).lineHeight) || Number.parseFloat(getComputedStyle(caption).fontSize) * 1.2;
    return {
      // What a reader sees of each label: its box within the header row's (a clipped header row is 1 px).
      labels: [...el.querySelectorAll('thead th')].map((th) => ({
        text: th.textContent,
        height: Math.min(box(th).height, box(el.querySelector('thead')!).height),
        width: Math.min(box(th).width, box(el.querySelector('thead')!).width),
      })),
      captionLines: Math.round((box(caption).height - 16) / lineHeight),
      right: box(el).right,
    };
  });
  assert.equal(table.labels.length, 4);
  assert.ok(
    table.labels.every((l) => l.height > 10 && l.width > 30),
    `column labels shown: ${JSON.stringify(table.labels)}`,
  );
  assert.ok(table.captionLines <= 2, `the caption takes ${table.captionLines} lines`);
  assert.deepEqual(errors, []);
  await close();
});
