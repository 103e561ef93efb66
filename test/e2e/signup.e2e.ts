// A new shop from an empty browser to its first rung ticket (decision 0081), in Chromium at phone
// width (390 px): the sign-up screen, the verification mail read from a local SMTP server, its link
// (signed in on the board with the first-run checklist and the first test key), a ticket printed
// and opened on a phone, marked ready, rung; then its live key, and Billing: a plan chosen, paid
// through the local fake of Stripe Checkout (test/helpers/fake-stripe.ts) and back on the Billing
// screen showing it (issue 35). Every screen on the way, the forgotten-password and
// reset screens and the sign-up screen in German are kept under test-artifacts/screenshots/ and
// checked by axe-core (WCAG 2.2 A and AA, 0 violations).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';
import { launchChromium, PHONE } from '../helpers/chromium.ts';
import { pathOf } from '../helpers/live.ts';
import { card, createOnPage, keepScreen, type AxeViolation } from '../helpers/staff-page.ts';
import { FAKE_STRIPE, FakeStripe } from '../helpers/fake-stripe.ts';

const stripe = new FakeStripe();
let t: TestApp;
let smtp: LocalSmtp;
let browser: Browser;

before(async () => {
  smtp = await startSmtpServer();
  await stripe.start();
  t = await startTestApp({
    workers: true,
    env: { ...stripe.env(), SMTP_URL: smtp.url, MAIL_FROM: 'Readybell <noreply@pickup.example>', SIGNUP: 'open', TRIAL_DAYS: '14' },
  });
  stripe.webhookUrl = `${t.url}/billing/stripe/webhook`;
  stripe.returnTo = (url) => url.replace('http://localhost:3000', t.url);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
  await stripe.close();
});

const describe = (v: AxeViolation[]) => v.map((x) => `${x.id}: ${x.help} ${x.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');

async function keep(page: Page, name: string): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  const r = await keepScreen(page, name);
  assert.deepEqual(
    r.violations.map((v) => v.id),
    [],
    `${name}: axe found\n${describe(r.violations)}`,
  );
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `${name}: nothing wider than the phone (${wide} px)`);
}

async function phone(locale = 'en-GB'): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ ...PHONE, locale, timezoneId: 'Europe/Paris' });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { ctx, page, errors };
}

test('a new shop signs up on a phone, follows the emailed link, rings its first ticket and pays for Pro through Checkout', async () => {
  const started = performance.now();
  const { ctx, page, errors } = await phone();
  await page.goto(`${t.url}/staff#/`);
  await page.click('a:has-text("Sign up a new shop")');
  await page.waitForSelector('#su-email');
  assert.equal(await page.locator('.card .hint').first().textContent(), 'Your shop starts with a free 14-day trial of the Pro plan.');
  await keep(page, 'signup-phone');

  await page.fill('#su-email', 'maria@corner-cafe.example');
  await page.fill('#su-password', 'password123');
  await page.fill('#su-shop', 'Corner Café');
  assert.equal(await page.inputValue('#su-zone'), 'Europe/Paris', "the browser's time zone is the default");
  await page.click('button:has-text("Create my shop")');
  await page.waitForSelector('#su-password-error');
  assert.match((await page.textContent('#su-password-error'))!, /most common passwords/);
  assert.equal(await page.getAttribute('#su-password', 'aria-invalid'), 'true');
  await keep(page, 'signup-error-phone');

  await page.fill('#su-password', 'a kettle on the windowsill');
  await page.click('button:has-text("Create my shop")');
  await page.waitForSelector('h1:has-text("Check your inbox")');
  assert.match((await page.textContent('[role=status]'))!, /maria@corner-cafe\.example/);
  await keep(page, 'signup-sent-phone');

  const [mail] = await smtp.waitFor(1);
  assert.equal(mail!.subject, 'Confirm your email address for Corner Café');
  const link = smtp.linkIn(mail!, 'http://localhost:3000/staff/#/verify/');
  await page.goto(`${t.url}${new URL(link).pathname}${new URL(link).hash}`);
  await page.waitForSelector('.first-run');
  const signedIn = performance.now() - started;
  assert.match((await page.textContent('.first-run code.secret'))!, /^rk_test_[A-Za-z0-9]+$/);
  assert.match((await page.textContent('.first-run h2'))!, /Welcome, Corner Café/);
  await keep(page, 'first-run-phone');

  const number = await createOnPage(page, 'first order');
  await page.waitForSelector('.checklist li.done');
  const ticket = await page.evaluate(
    async () => ((await (await fetch('/v1/tickets?status=created')).json()) as { data: Array<{ url: string }> }).data[0]!,
  );
  const customer = await browser.newContext({ ...PHONE, locale: 'en-GB' });
  const guest = await customer.newPage();
  await guest.goto(t.url + pathOf(ticket.url));
  await guest.waitForSelector('html[data-live="on"]');
  await card(page, number).locator('.chip-viewed').waitFor();
  assert.equal(await page.locator('.checklist li.done').count(), 2, 'printed, and opened on a phone');
  await page.click(`button[aria-label="Mark ${number} ready"]`);
  await guest.waitForSelector('html[data-ringing][data-state="ready"]');
  const rung = performance.now() - started;
  await keep(page, 'first-rung-phone');

  // The live key, once the address is verified (it is: the link did it).
  await page.click('.first-run a:has-text("API keys")');
  await page.waitForSelector('.admin');
  const key = await page.evaluate(async () => {
    const session = (await (await fetch('/v1/session')).json()) as { csrf_token: string };
    const res = await fetch('/v1/api_keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
      body: JSON.stringify({ mode: 'live', name: 'Till' }),
    });
    return { status: res.status, body: (await res.json()) as { secret: string } };
  });
  assert.equal(key.status, 201);
  assert.match(key.body.secret, /^rk_live_/);
  const liveKey = performance.now() - started;

  // Billing, from the menu: the plans, Pro monthly, the Checkout fake (which tells readybell with a
  // signed event, as Stripe does) and back on Billing, which says so and shows the plan.
  await page.getByRole('navigation').getByRole('link', { name: 'Billing' }).click();
  await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
  await page.getByRole('heading', { level: 2, name: 'Choose a plan' }).waitFor();
  const facts = page.locator('.billing-facts');
  const shown = () =>
    facts
      .locator('div')
      .evaluateAll((els) => els.map((e) => `${e.querySelector('dt')!.textContent}: ${e.querySelector('dd')!.textContent}`));
  assert.deepEqual(await shown(), ['Plan: Pro', 'Trial left: 14 days', 'SMS this month: 0'], 'the sign-up trial, no subscription yet');
  await page.getByRole('radio', { name: 'Monthly' }).check();
  await page.getByRole('button', { name: 'Choose Pro' }).click();
  await page.getByRole('status').filter({ hasText: 'your subscription is set up' }).waitFor();
  assert.match(page.url(), /\/staff\/#\/settings\/billing$/, 'back on the Billing screen');
  await page.getByRole('button', { name: 'Manage billing' }).waitFor();
  const [sub] = [...stripe.subscriptions.values()];
  assert.deepEqual(await shown(), [
    'Plan: Pro',
    'Status: Trial',
    'Trial left: 14 days',
    `Next invoice: ${new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(sub!.items.data[0]!.current_period_end * 1000))}`,
    'SMS this month: 0',
  ]);
  assert.equal(sub?.items.data[0]?.price.id, FAKE_STRIPE.PRO_MONTHLY, 'Checkout sold Pro, monthly');
  assert.equal((await t.request('GET', '/v1/tickets', { key: key.body.secret })).status, 200, 'the live key still works');
  await keep(page, 'signup-billing-phone');
  const paid = performance.now() - started;
  console.log(
    `sign-up screen → signed in on the board: ${(signedIn / 1000).toFixed(1)} s; → first ticket rung: ${(rung / 1000).toFixed(1)} s; → live key: ${(liveKey / 1000).toFixed(1)} s; → back on Billing with Pro: ${(paid / 1000).toFixed(1)} s (browser automation, local SMTP, Checkout fake)`,
  );
  assert.deepEqual(errors, []);
  await customer.close();
  await ctx.close();
});

test('forgot and reset password at phone width, and sign-up in German', async () => {
  const owner = await t.newTenant();
  const { ctx, page, errors } = await phone();
  await page.goto(`${t.url}/staff#/`);
  await page.click('a:has-text("Forgot password?")');
  await page.waitForSelector('#fp-email');
  await keep(page, 'forgot-phone');
  await page.fill('#fp-email', owner.ownerEmail);
  await page.click('button:has-text("Send me a link")');
  await page.waitForSelector('h1:has-text("Check your inbox")');
  await keep(page, 'forgot-sent-phone');
  await smtp.waitFor(smtp.received.length + 1).catch(() => {});
  const mail = await (async () => {
    for (let i = 0; i < 200; i++) {
      const m = smtp.received.find((r) => r.envelopeTo.includes(owner.ownerEmail));
      if (m !== undefined) return m;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no reset mail');
  })();
  const link = new URL(smtp.linkIn(mail, 'http://localhost:3000/staff/#/reset/'));
  await page.goto(`${t.url}${link.pathname}${link.hash}`);
  await page.waitForSelector('#rp-password');
  await keep(page, 'reset-phone');
  await page.fill('#rp-password', 'short');
  await page.click('button:has-text("Save the new password")');
  await page.waitForSelector('#rp-password-error');
  await keep(page, 'reset-error-phone');
  await page.fill('#rp-password', 'a brand new kettle phrase');
  await page.click('button:has-text("Save the new password")');
  await page.waitForSelector('h1:has-text("Password changed")');
  await keep(page, 'reset-done-phone');
  assert.deepEqual(errors, []);
  await ctx.close();

  const de = await phone('de-DE');
  await de.page.goto(`${t.url}/staff#/signup`);
  await de.page.waitForSelector('#su-email');
  assert.equal(await de.page.textContent('button[type=submit]'), 'Mein Geschäft anlegen');
  await keep(de.page, 'signup-de-phone');
  await de.ctx.close();
});
