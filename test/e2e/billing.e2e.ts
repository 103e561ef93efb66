// The Billing screen (issue 35 items 4 and 6) in Chromium at a phone's width (390 px), against a
// readybell billing through the local fake of Stripe (test/helpers/fake-stripe.ts): a free shop's
// owner chooses Pro, goes through the Checkout fake (which tells readybell with a signed event, as
// Stripe does) and comes back to the Billing screen, which says so and shows the plan, its status,
// the next invoice and this month's SMS; a failed payment then shows a banner on every screen and
// the grace's end on Billing. Each state is checked by axe-core (WCAG 2.2 A and AA); the screen after
// Checkout is kept as test-artifacts/screenshots/staff-billing-phone.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { launchChromium, PHONE } from '../helpers/chromium.ts';
import { axeViolations, keepScreen, openStaffPage } from '../helpers/staff-page.ts';
import { FakeStripe } from '../helpers/fake-stripe.ts';
import { recordSmsUsage } from '../../src/store/billing.ts';

const stripe = new FakeStripe();
let t: TestApp;
let browser: Browser;
let shop: Tenant;

before(async () => {
  await stripe.start();
  t = await startTestApp({ env: stripe.env() });
  stripe.webhookUrl = `${t.url}/billing/stripe/webhook`;
  stripe.returnTo = (url) => url.replace('http://localhost:3000', t.url);
  shop = await t.newTenant({ plan: 'free' });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await stripe.close();
});

async function axeClean(page: import('playwright-core').Page, state: string): Promise<void> {
  const v = await axeViolations(page);
  assert.deepEqual(
    v.map((x) => `${x.id}: ${x.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `${state}: axe found violations`,
  );
}

test('a free shop chooses Pro, pays through Checkout and returns to Billing; a failed payment shows a banner', async () => {
  // Three SMS this month (as the SMS channel records them), for the count.
  const [branch] = await t.app.services.db.query<{ id: string }>('SELECT id FROM branches WHERE account_id = $1', [shop.accountId]);
  await t.app.services.db.write(async (tx) => {
    for (const ring of ['rng_e2e_1', 'rng_e2e_2', 'rng_e2e_3']) await recordSmsUsage(tx, ring, branch!.id, Date.now());
  });
  const { ctx, page, errors } = await openStaffPage(browser, t, { email: shop.ownerEmail, password: shop.ownerPassword }, PHONE);
  try {
    await page.goto(`${t.url}/staff/#/settings/billing`);
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Choose a plan' }).waitFor();
    await axeClean(page, 'plans');
    await page.getByRole('radio', { name: 'Yearly' }).check();
    assert.equal(await page.getByRole('button', { name: 'Choose Business' }).count(), 0, 'Business is sold monthly only here');
    await page.getByRole('radio', { name: 'Monthly' }).check();
    await page.getByRole('button', { name: 'Choose Pro' }).click();

    // Checkout (the fake) → the signed event to readybell → back to Billing, on the trial (TRIAL_DAYS, 14 by default).
    await page.getByRole('status').filter({ hasText: 'your subscription is set up' }).waitFor();
    assert.match(page.url(), /\/staff\/#\/settings\/billing$/, 'the return is said once: the address is the bare screen');
    const facts = page.locator('.billing-facts');
    await facts.getByText('Trial', { exact: true }).waitFor();
    assert.deepEqual(
      await facts
        .locator('div')
        .evaluateAll((els) => els.map((e) => `${e.querySelector('dt')!.textContent}: ${e.querySelector('dd')!.textContent}`)),
      [
        'Plan: Pro',
        'Status: Trial',
        'Trial left: 14 days',
        `Next invoice: ${new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date([...stripe.subscriptions.values()][0]!.items.data[0]!.current_period_end * 1000))}`,
        'SMS this month: 3',
      ],
    );
    await page.getByRole('button', { name: 'Manage billing' }).waitFor();
    await axeClean(page, 'after Checkout');
    const kept = await keepScreen(page, 'billing-phone');
    assert.deepEqual(kept.violations, []);
    assert.equal((await t.request('GET', '/v1/tickets', { key: shop.liveKey })).status, 200, 'the live key works');

    // A payment fails: the board shows a banner that leads to Billing.
    const sub = [...stripe.subscriptions.values()][0]!;
    sub.status = 'past_due';
    const e = stripe.event('invoice.payment_failed', { id: 'in_e2e', object: 'invoice', customer: sub.customer });
    const res = await t.request('POST', '/billing/stripe/webhook', {
      key: null,
      raw: e.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
    });
    assert.equal(res.status, 200);
    await page.goto(`${t.url}/staff/#/board`);
    await page.reload();
    const banner = page.getByRole('note').filter({ hasText: 'A payment for this account failed.' });
    await banner.waitFor();
    await banner.getByRole('link', { name: 'Open Billing' }).click();
    await page.getByRole('alert').filter({ hasText: 'A payment failed' }).waitFor();
    await axeClean(page, 'payment failed');
    await keepScreen(page, 'billing-payment-failed-phone');
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
  }
});
