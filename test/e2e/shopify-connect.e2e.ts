// The Shopify connect screen (issue 33) in Chromium, against a readybell whose Shopify app points
// at the local fake of Shopify (test/helpers/fake-shopify.ts, as test/api/shopify-*.test.ts use it):
// the staff page lists the installed connectors (Square and Shopify) from GET /v1/connectors; the
// owner names the store, goes through the store's authorize page (the fake approves) and back
// through the port's callback, chooses the location, sees Connected, and disconnects. A domain
// that is not a myshopify.com store is refused at its field. Each state is checked by axe-core;
// the "choose location" and "connected" states are kept as screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { asSession, signInOk } from '../helpers/session.ts';
import { axeViolations, openStaffPage, shot } from '../helpers/staff-page.ts';
import { FakeShopify } from '../helpers/fake-shopify.ts';

let shopify: FakeShopify;
let t: TestApp;
let browser: Browser;
/** The store authorize pages the browser was sent to. */
const authorizePages: string[] = [];

before(async () => {
  shopify = await new FakeShopify().start();
  t = await startTestApp({ env: { ...shopify.env(), WEBHOOK_SECRETS_KEY: 'd'.repeat(64) } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await shopify?.close();
});

async function axeClean(page: Page, state: string): Promise<void> {
  const v = await axeViolations(page);
  assert.deepEqual(
    v.map((x) => `${x.id}: ${x.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `${state}: axe found violations`,
  );
}

/** The store's authorize page, as the owner approves it: back to this app's callback with a code and the state. */
async function answerShopifyAuthorize(page: Page): Promise<void> {
  await page.route(`${shopify.url}/admin/oauth/authorize**`, (route) => {
    const url = route.request().url();
    authorizePages.push(url);
    const { redirect } = shopify.authorize(url);
    return route.fulfill({ status: 302, headers: { location: `${t.url}${redirect.pathname}${redirect.search}` } });
  });
}

test('an owner connects a Shopify store by its domain, chooses the location, and disconnects', async () => {
  const owner = { email: t.tenant.ownerEmail, password: t.tenant.ownerPassword };
  const asOwner = asSession(t, await signInOk(t, owner.email, owner.password));
  const connection = async () => (await asOwner('GET', '/v1/connectors/shopify')).body;
  const { ctx, page, errors } = await openStaffPage(browser, t, owner);
  await answerShopifyAuthorize(page);

  // Both installed connectors have a screen, listed by the server.
  const nav = page.getByRole('navigation', { name: 'Screens' });
  await nav.getByRole('link', { name: 'Shopify' }).waitFor();
  const links = await nav.getByRole('link').allTextContents();
  assert.deepEqual(links.slice(links.indexOf('Users') + 1), ['Square', 'Shopify', 'Billing']);
  await nav.getByRole('link', { name: 'Shopify' }).click();
  await page.getByRole('heading', { level: 1, name: 'Shopify' }).waitFor();
  await axeClean(page, 'not connected');

  // A domain that is not a store's is refused at its field, and the browser stays here.
  const shop = page.getByLabel('Your store’s myshopify.com address');
  await shop.fill('corner-cafe.example.com');
  await page.getByRole('button', { name: 'Connect Shopify' }).click();
  await page.locator('#shopify-shop-error').waitFor();
  assert.match((await page.locator('#shopify-shop-error').textContent())!, /myshopify\.com domain/);
  assert.equal(await shop.getAttribute('aria-invalid'), 'true');
  assert.equal(authorizePages.length, 0);

  // The store's authorize page (the fake approves) and back through readybell's callback.
  await shop.fill('corner-cafe.myshopify.com');
  await page.getByRole('button', { name: 'Connect Shopify' }).click();
  await page.getByText('Shopify is connected. Choose the location whose pickup orders come here to finish.').waitFor();
  assert.equal(authorizePages.length, 1, 'the browser went to the store');
  assert.equal(new URL(authorizePages[0]!).searchParams.get('client_id'), FakeShopify.API_KEY);
  await page.waitForFunction(() => location.hash === '#/settings/shopify', null, { timeout: 2000 });
  assert.equal((await connection()).status, 'choose_location');

  // Choose: the only active location is chosen for the owner; an inactive one cannot be picked.
  await page.getByText('readybell can reach the store Corner Café.').waitFor();
  const main = page.getByRole('radio', { name: /Main Street/ });
  await main.waitFor();
  assert.equal(await main.isChecked(), true);
  assert.equal(await page.getByRole('radio', { name: /Old Town/ }).isDisabled(), true);
  await axeClean(page, 'choose location');
  await shot(page, 'shopify-choose-location');
  await page.getByRole('button', { name: 'Start taking Shopify orders' }).click();

  // Connected: the store, a development one (its orders are test tickets), the location, since when.
  await page.getByText('Connected: pickup orders at Main Street now become tickets here.').waitFor();
  const facts = page.locator('dl.square-facts');
  await facts.waitFor();
  assert.match((await facts.textContent())!, /Shopify storeCorner CaféDevelopment store/);
  assert.match((await facts.textContent())!, /Shopify locationMain Street/);
  await page.getByText('This is a development store').waitFor();
  const now = await connection();
  assert.deepEqual([now.status, now.location?.name], ['connected', 'Main Street']);
  await axeClean(page, 'connected');
  await shot(page, 'shopify-connected');

  // Disconnect asks first, in the page's own dialog; then the connect form is back.
  await page.getByRole('button', { name: 'Disconnect Shopify' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  assert.match((await dialog.textContent())!, /Disconnect Corner Café from readybell\?/);
  await dialog.getByRole('button', { name: 'Disconnect Shopify' }).click();
  await page.getByText('Shopify is disconnected.').waitFor();
  await page.getByLabel('Your store’s myshopify.com address').waitFor();
  assert.equal((await connection()).status, 'not_connected');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a manager sees no connector screen; its address leads to the board', async () => {
  const asOwner = asSession(t, await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword));
  const email = 'manager@shopify.example';
  const invited = await asOwner('POST', '/v1/users', { body: { email, role: 'manager' } });
  assert.equal(invited.status, 201, invited.text);
  const { ctx, page } = await openStaffPage(browser, t, { email, password: invited.body.password });
  const links = await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents();
  assert.ok(!links.includes('Shopify') && !links.includes('Square'), links.join(', '));
  await page.goto(`${t.url}/staff/#/settings/shopify`);
  await page.waitForSelector('.board');
  assert.equal(await page.getByRole('heading', { level: 1, name: 'Shopify' }).count(), 0);
  await ctx.close();
});

test('GET /v1/connectors lists both installed connectors to a staff session; an API key gets 403', async () => {
  const asOwner = asSession(t, await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword));
  const list = await asOwner('GET', '/v1/connectors');
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(
    list.body.data.map((c: any) => [c.name, c.configured, c.screen]),
    [
      ['square', false, '/staff/#/settings/square'],
      ['shopify', true, '/staff/#/settings/shopify'],
    ],
  );
  assert.equal((await t.request('GET', '/v1/connectors', { key: t.tenant.liveKey })).status, 403);
});
