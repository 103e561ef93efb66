// STRIPE_* and BILLING_GRACE_DAYS (issue 35 item 8, decision 0084; TRIAL_DAYS is sign-up's, 0081): each checked at
// start, a half-configured Stripe refused with a message naming what is missing or wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../helpers/config-problems.ts';

const STRIPE = { STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_PRICE_PRO_MONTHLY: 'price_pro_m' };
const rejects = (env: Record<string, string>, message: RegExp) =>
  assert.ok(
    configProblems(env).some((p) => message.test(p)),
    `${JSON.stringify(env)}: ${configProblems(env).join('; ')}`,
  );

test('without STRIPE_SECRET_KEY there is no Stripe, and other STRIPE_ variables alone are refused', () => {
  const c = loadConfig({});
  assert.deepEqual([c.stripe, c.billingGraceDays], [null, 7]);
  rejects(
    { STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_PRICE_PRO_MONTHLY: 'price_x' },
    /STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_PRO_MONTHLY need STRIPE_SECRET_KEY/,
  );
});

test('a Stripe configuration: the key, the webhook secret, the prices by plan and period, the API origin', () => {
  const c = loadConfig({
    ...STRIPE,
    STRIPE_PRICE_BUSINESS_YEARLY: 'price_biz_y',
    STRIPE_API_URL: 'http://127.0.0.1:12111',
    TRIAL_DAYS: '0',
    BILLING_GRACE_DAYS: '3',
  });
  assert.deepEqual(c.stripe?.prices, [
    { plan: 'pro', period: 'monthly', priceId: 'price_pro_m' },
    { plan: 'business', period: 'yearly', priceId: 'price_biz_y' },
  ]);
  assert.deepEqual(c.stripe?.api, { protocol: 'http', host: '127.0.0.1', port: 12111 });
  assert.equal(c.stripe?.meterEvent, 'readybell_sms');
  assert.deepEqual([c.signup.trialDays, c.billingGraceDays], [0, 3]);
  assert.equal(loadConfig(STRIPE).stripe?.api, null, "Stripe's own origin by default");
});

test('each mistake names its variable', () => {
  rejects({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_PRICE_PRO_MONTHLY: 'price_x' }, /STRIPE_SECRET_KEY needs STRIPE_WEBHOOK_SECRET/);
  rejects({ ...STRIPE, STRIPE_WEBHOOK_SECRET: 'abc' }, /STRIPE_WEBHOOK_SECRET must be the signing secret/);
  rejects({ ...STRIPE, STRIPE_SECRET_KEY: 'pk_test_public' }, /STRIPE_SECRET_KEY must be a Stripe secret or restricted key/);
  rejects({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_x' }, /needs at least one price: STRIPE_PRICE_PRO_MONTHLY/);
  rejects({ ...STRIPE, STRIPE_PRICE_PRO_YEARLY: 'prod_123' }, /STRIPE_PRICE_PRO_YEARLY must be a Stripe price id/);
  rejects({ ...STRIPE, STRIPE_PRICE_SMS: 'x' }, /STRIPE_PRICE_SMS must be a Stripe price id/);
  rejects({ ...STRIPE, STRIPE_API_URL: 'ftp://stripe' }, /STRIPE_API_URL must be an http\(s\) URL/);
  rejects({ BILLING_GRACE_DAYS: '-1' }, /BILLING_GRACE_DAYS must be a whole number from 0 to 90/);
});
