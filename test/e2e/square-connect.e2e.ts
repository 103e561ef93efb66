// The Square connect screen (issue 29) in Chromium, against a readybell whose Square application
// points at the local fake of Square (test/helpers/fake-square.ts): the owner connects through
// Square's authorize step and back, chooses a location and queue, sees Connected, switches the
// Ready setting and disconnects; a declined consent is said in a sentence; a refused token refresh
// is a warning with Reconnect; a ticket from a Square order is tagged on the board; managers and
// staff do not see the screen; without a Square application the screen says so, with no button. Each
// state is checked by axe-core (WCAG 2.2 A and AA); the "choose location" step is kept as
// /work/notes/screens/square-connect.png for people to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { asSession, signInOk } from '../helpers/session.ts';
import { axeViolations, card, openStaffPage, shot, SIZES } from '../helpers/staff-page.ts';
import { FakeSquare } from '../helpers/fake-square.ts';
import { connectSquare, notifyAndRun, ownerOf, type Owner } from '../helpers/square.ts';

const DESKTOP = { viewport: { width: 1280, height: 800 } };
const SCREENS = '/work/notes/screens';

let square: FakeSquare;
let t: TestApp;
let browser: Browser;
let owner: { email: string; password: string };
let ownerApi: Owner;
let asOwner: Owner['as'];
/** Square's authorize pages the browser was sent to, and whether the next one is declined. */
const authorizePages: string[] = [];
let declineNext = false;

before(async () => {
  square = await new FakeSquare().start();
  t = await startTestApp({ env: square.env() });
  owner = { email: t.tenant.ownerEmail, password: t.tenant.ownerPassword };
  ownerApi = await ownerOf(t, t.tenant);
  asOwner = ownerApi.as;
  assert.equal((await asOwner('POST', '/v1/queues', { body: { name: 'S' } })).status, 201);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await square?.close();
});

const connection = async () => (await asOwner('GET', '/v1/connectors/square')).body;

async function axeClean(page: Page, state: string): Promise<void> {
  const v = await axeViolations(page);
  assert.deepEqual(
    v.map((x) => `${x.id}: ${x.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `${state}: axe found violations`,
  );
}

/**
 * Square's authorize page, as the owner answers it: the fake says where Square sends the browser
 * back (the callback with a code and the state, or with error=access_denied), on this app's
 * address (the test app's PUBLIC_URL is a placeholder).
 */
async function answerSquareAuthorize(page: Page): Promise<void> {
  await page.route(`${square.url}/oauth2/authorize**`, (route) => {
    const url = route.request().url();
    authorizePages.push(url);
    const { redirect } = square.authorize(url, declineNext);
    declineNext = false;
    return route.fulfill({ status: 302, headers: { location: `${t.url}${redirect.pathname}${redirect.search}` } });
  });
}

async function openSquareScreen(page: Page): Promise<void> {
  await answerSquareAuthorize(page);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Square' }).click();
  await page.getByRole('heading', { level: 1, name: 'Square' }).waitFor();
}

test('an owner connects Square through its authorize page, chooses a location and queue, and disconnects', async () => {
  const { ctx, page, errors } = await openStaffPage(browser, t, owner, DESKTOP);
  await openSquareScreen(page);
  const connect = page.getByRole('button', { name: 'Connect Square' });
  await connect.waitFor();
  await axeClean(page, 'not connected');

  // Connect: to Square's authorize page (the fake approves) and back through readybell's callback.
  await connect.click();
  await page.getByText('Square is connected. Choose the location whose orders come here to finish.').waitFor();
  assert.equal(authorizePages.length, 1, 'the browser went to Square');
  const asked = new URL(authorizePages[0]!);
  assert.equal(asked.searchParams.get('scope'), 'MERCHANT_PROFILE_READ ORDERS_READ ORDERS_WRITE');
  // Said once: the address goes back to the bare screen, so a reload does not say it again.
  await page.waitForFunction(() => location.hash === '#/settings/square');
  await page.reload();
  await page.getByRole('radio', { name: /Main Street/ }).waitFor();
  assert.equal(await page.getByText('Square is connected. Choose').count(), 0, 'a reload does not say it again');
  assert.equal((await connection()).status, 'choose_location');

  // Choose: the merchant's locations (an inactive one cannot be picked), the queue, the Ready setting.
  const main = page.getByRole('radio', { name: /Main Street/ });
  await main.waitFor();
  assert.equal(await page.getByRole('radio', { name: /inactive/ }).isDisabled(), true, 'an inactive location cannot be chosen');
  mkdirSync(SCREENS, { recursive: true });
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: `${SCREENS}/square-connect.png`, fullPage: true });
  await axeClean(page, 'choose location');
  await main.check();
  await page.getByLabel('Queue for Square orders').selectOption('S');
  await page.getByLabel('Mark Square orders prepared when you press Ready here').check();
  await page.getByRole('button', { name: 'Start taking Square orders' }).click();

  // Connected: what, where, since when; the setting is what was chosen.
  await page.getByText('Connected: pickup orders at Main Street now become tickets here.').waitFor();
  await page.getByText('Connected', { exact: true }).waitFor();
  // The heading takes focus in an effect after the new state is drawn: waited for, not raced.
  const focused = async () =>
    (await page.waitForFunction(() => document.activeElement?.id === 'square-title', null, { timeout: 2000 }).catch(() => null)) === null
      ? await page.evaluate(() => document.activeElement?.id)
      : 'square-title';
  assert.equal(await focused(), 'square-title', 'the form is gone: focus starts again from the heading');
  const facts = page.locator('.square-facts');
  assert.match((await facts.textContent())!, /Main Street/);
  assert.match((await facts.textContent())!, /Queue for Square ordersS/);
  let c = await connection();
  assert.deepEqual([c.status, c.location?.name, c.queue, c.mark_prepared], ['connected', 'Main Street', 'S', true]);
  await axeClean(page, 'connected');

  // The Ready setting switches on its own, saved at once.
  await page.getByLabel('Mark Square orders prepared when you press Ready here').uncheck();
  await page.getByText('Ready here no longer changes the Square order.').waitFor();
  assert.equal((await connection()).mark_prepared, false);

  // Disconnect asks first, in the page's own dialog; then Square revokes the token.
  await page.getByRole('button', { name: 'Disconnect Square' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  assert.match((await dialog.textContent())!, /New Square orders will stop becoming tickets/);
  await dialog.getByRole('button', { name: 'Disconnect Square' }).click();
  await connect.waitFor();
  assert.equal(await focused(), 'square-title', 'Disconnect is gone: focus starts again from the heading');
  c = await connection();
  assert.equal(c.status, 'not_connected');
  assert.equal(square.revoked.length, 1, 'the token was revoked at Square');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('declining at Square brings the owner back to a sentence saying so, and Connect again', async () => {
  declineNext = true;
  const { ctx, page, errors } = await openStaffPage(browser, t, owner, DESKTOP);
  await openSquareScreen(page);
  await page.getByRole('button', { name: 'Connect Square' }).click();
  const said = page.getByRole('alert').filter({ hasText: 'You declined access in Square, so readybell is not connected.' });
  await said.waitFor();
  // The sentence comes from the return's address at once; the button once the connection is read.
  await page.getByRole('button', { name: 'Connect Square' }).waitFor({ timeout: 5000 });
  assert.equal((await connection()).status, 'not_connected');
  await axeClean(page, 'declined');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('the connected screen fits a phone without sideways scrolling', async () => {
  // Connected through the API's own steps, as the first test did on the page.
  await connectSquare(t, square, ownerApi);
  const { ctx, page } = await openStaffPage(browser, t, owner, SIZES.phone);
  await page.goto(`${t.url}/staff/#/settings/square`);
  await page.getByRole('button', { name: 'Disconnect Square' }).waitFor();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 360, `no sideways scrolling on a phone (page is ${width} px wide)`);
  await axeClean(page, 'connected on a phone');
  await ctx.close();
});

test('a ticket made from a Square order carries a Square tag on the board', async () => {
  if ((await connection()).status !== 'connected') await connectSquare(t, square, ownerApi);
  const order = square.addOrder();
  await notifyAndRun(t, square, 'order.created', order);
  const number = square.orders.get(order.id)!.ticket_name!;
  assert.ok(number, 'the ticket number was written on the Square order');
  const handMade = (await t.request('POST', '/v1/tickets', { key: t.tenant.testKey, body: { external_ref: 'by-hand' } })).body;
  const { ctx, page, errors } = await openStaffPage(browser, t, owner, DESKTOP);
  // A sandbox application's orders are test tickets (decision 0073).
  await page.getByRole('radio', { name: 'Test' }).check();
  const fromSquare = card(page, number);
  await fromSquare.waitFor();
  const tag = fromSquare.locator('.tag-square [aria-hidden="true"]');
  assert.ok(await tag.isVisible(), 'the tag shows');
  assert.equal(await tag.textContent(), 'Square');
  assert.match((await fromSquare.textContent())!, /Order from Square/, 'screen readers hear where it came from');
  assert.equal(await card(page, handMade.display_number).locator('.tag-square').count(), 0, 'a ticket made by hand has no tag');
  await shot(page, 'square-board', false);
  await axeClean(page, 'board with a Square ticket');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a refused token refresh is a warning with what Square said, and Reconnect goes through Square again', async () => {
  // A token with a day left is due for refresh at once; Square refuses the refresh.
  square.tokenLifetimeMs = 24 * 3600_000;
  square.refuseRefresh = true;
  try {
    await connectSquare(t, square, ownerApi, { queue: 'S' });
    assert.deepEqual(await t.app.connectors.get('square')!.refreshTokens(), { refreshed: 0, failed: 1 });
  } finally {
    square.tokenLifetimeMs = 30 * 24 * 3600_000;
    square.refuseRefresh = false;
  }
  const { ctx, page, errors } = await openStaffPage(browser, t, owner, DESKTOP);
  await openSquareScreen(page);
  const warning = page.getByRole('alert').filter({ hasText: 'readybell can no longer reach your Square account' });
  await warning.waitFor();
  assert.match((await warning.textContent())!, /Square said: Token refresh failed: ObtainToken: 401 UNAUTHORIZED/);
  await axeClean(page, 'refresh failed');
  await page.getByRole('button', { name: 'Reconnect Square' }).click();
  await page.getByText('Square is connected. Choose the location whose orders come here to finish.').waitFor();
  // The location is chosen again; the queue chosen before is kept.
  assert.equal(await page.getByLabel('Queue for Square orders').inputValue(), 'S');
  await page.getByRole('button', { name: 'Start taking Square orders' }).click();
  await page.getByText('Connected', { exact: true }).waitFor();
  assert.equal(await page.getByText('Choose the location whose orders come here').count(), 0, 'what Square said went with the choice');
  assert.equal((await connection()).status, 'connected');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('managers and staff do not see the Square screen, and the API refuses them', async () => {
  for (const role of ['manager', 'staff'] as const) {
    const email = `${role}@square.example`;
    const invited = await asOwner('POST', '/v1/users', { body: { email, role } });
    assert.equal(invited.status, 201);
    const { ctx, page } = await openStaffPage(browser, t, { email, password: invited.body.password });
    const nav = await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents();
    assert.ok(!nav.includes('Square'), `${role}: no Square in ${nav.join(', ')}`);
    // Its address leads to the first screen the role has, not to the Square screen.
    await page.goto(`${t.url}/staff/#/settings/square`);
    await page.waitForSelector('.board');
    assert.equal(await page.getByRole('heading', { level: 1, name: 'Square' }).count(), 0);
    const asThem = asSession(t, await signInOk(t, email, invited.body.password));
    assert.equal((await asThem('GET', '/v1/connectors/square')).status, 403);
    await ctx.close();
  }
});

test('without a Square application the screen says so and offers no button', async () => {
  const plain = await startTestApp();
  try {
    const { ctx, page } = await openStaffPage(
      browser,
      plain,
      { email: plain.tenant.ownerEmail, password: plain.tenant.ownerPassword },
      DESKTOP,
    );
    await openSquareScreen(page);
    await page.getByText('Square is not set up on this readybell yet').waitFor();
    assert.equal(await page.getByRole('button', { name: /Square/ }).count(), 0);
    await axeClean(page, 'not configured');
    await ctx.close();
  } finally {
    await plain.close();
  }
});
