// Parity by behaviour (PRODUCT.md §12): one counter shift run through the staff page in Chromium
// and the same shift run through the API with a live key leave the same tickets and the same
// events behind, ids and times aside. The page is only another client of /v1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { card, createOnPage, openStaffPage } from '../helpers/staff-page.ts';

const clock = new FakeClock(Date.now());
let t: TestApp;
let browser: Browser;
let viaPage: Tenant;
let viaApi: Tenant;
before(async () => {
  t = await startTestApp({ clock });
  viaPage = await t.newTenant();
  viaApi = await t.newTenant();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

const REFS = ['shift-1', 'shift-2', 'shift-3'];
const RING_INTERVAL_MS = 11_000; // ring again is allowed 10 s after the last ring

async function shiftThroughPage(): Promise<void> {
  const { ctx, page, errors } = await openStaffPage(browser, t, { email: viaPage.ownerEmail, password: viaPage.ownerPassword });
  const [a, b, c] = [await createOnPage(page, REFS[0]!), await createOnPage(page, REFS[1]!), await createOnPage(page, REFS[2]!)];
  const tap = async (label: string, done: () => Promise<unknown>) => {
    await page.click(`button[aria-label="${label}"]`);
    await done();
  };
  const result = (n: string) => card(page, n).locator('.ring-result');
  await tap(`Mark ${a} ready`, () => result(a!).waitFor());
  clock.advance(RING_INTERVAL_MS);
  await page.click(`button[aria-label="Ring again: ${a}"]`);
  await page.waitForFunction((n) => document.querySelector(`li[data-number="${n}"] .rings`)?.textContent === 'rung 2×', a);
  await tap(`${a} collected`, () => page.locator('.column-closed').locator(`li[data-number="${a}"]`).waitFor());
  await tap(`Cancel ${b}`, () => page.locator('.column-closed').locator(`li[data-number="${b}"]`).waitFor());
  await tap(`Mark ${c} ready`, () => result(c!).waitFor());
  assert.deepEqual(errors, []);
  await ctx.close();
}

async function shiftThroughApi(): Promise<void> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await t.request(method, path, { key: viaApi.liveKey, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const [a, b, c] = [
    await call('POST', '/v1/tickets', { external_ref: REFS[0] }),
    await call('POST', '/v1/tickets', { external_ref: REFS[1] }),
    await call('POST', '/v1/tickets', { external_ref: REFS[2] }),
  ];
  await call('POST', `/v1/tickets/${a.id}/ready`);
  clock.advance(RING_INTERVAL_MS);
  await call('POST', `/v1/tickets/${a.id}/ring`);
  await call('POST', `/v1/tickets/${a.id}/collect`);
  await call('POST', `/v1/tickets/${b.id}/cancel`, {});
  await call('POST', `/v1/tickets/${c.id}/ready`);
}

const ID = /^(tk|evt|br|rng|acct|key|usr|job)_[0-9a-z]{26}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Ids, times, links and request provenance differ by construction; everything else must not. */
function normalise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalise);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([k]) => k !== 'request' && k !== 'url' && k !== 'branch')
        .map(([k, x]) => [k, normalise(x)]),
    );
  }
  if (typeof v === 'string' && ID.test(v)) return '<id>';
  if (typeof v === 'string' && TIME.test(v)) return '<time>';
  return v;
}

async function record(tenant: Tenant): Promise<{ tickets: unknown; events: unknown }> {
  const tickets = (await t.request('GET', '/v1/tickets?limit=100', { key: tenant.liveKey })).body.data;
  const events = (await t.request('GET', '/v1/events?limit=100', { key: tenant.liveKey })).body.data;
  // Sorted by what happened, not by id, so that equal times cannot reorder the comparison.
  const key = (e: { type: string; data: { object: { external_ref: string } } }) => `${e.data.object.external_ref} ${e.type}`;
  return { tickets: normalise(tickets), events: normalise([...events].sort((x, y) => key(x).localeCompare(key(y)))) };
}

test('one counter shift through the page and through the API leaves the same tickets and events', async () => {
  await shiftThroughPage();
  await shiftThroughApi();
  const page = await record(viaPage);
  const api = await record(viaApi);
  assert.equal((page.tickets as unknown[]).length, 3);
  const types = (page.events as Array<{ type: string }>).map((e) => e.type);
  for (const type of ['ticket.created', 'ticket.ready', 'ticket.rung', 'ticket.collected', 'ticket.cancelled'])
    assert.ok(types.includes(type), `${type} happened`);
  assert.deepEqual(page.tickets, api.tickets);
  assert.deepEqual(page.events, api.events);
});
