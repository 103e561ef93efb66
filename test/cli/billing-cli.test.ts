// The operator's side of billing through Stripe (issue 35 items 4 and 7, decision 0084): without
// Stripe configured plans are set with `accounts set-plan`; with it, the command refuses and says
// plans are Stripe's; `accounts list` shows each account's billing status and trial end.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import { saveBillingState, saveCustomer } from '../../src/store/billing.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';
import { FAKE_STRIPE } from '../helpers/fake-stripe.ts';

let store: TestStore;
before(async () => {
  store = await createTestStore();
});
after(() => store.drop());

const STRIPE = {
  STRIPE_SECRET_KEY: FAKE_STRIPE.SECRET_KEY,
  STRIPE_WEBHOOK_SECRET: FAKE_STRIPE.WEBHOOK_SECRET,
  STRIPE_PRICE_PRO_MONTHLY: FAKE_STRIPE.PRO_MONTHLY,
};
const TRIAL_END = Date.parse('2026-12-24T09:30:00.000Z');
const GRACE = Date.parse('2026-12-10T08:00:00.000Z');

test('set-plan works without Stripe and refuses with it; accounts list shows billing status and trial end', async () => {
  const trialing = await runCliJson(store.env, ['accounts', 'create', '--name', 'Trying', '--plan', 'pro']);
  const failing = await runCliJson(store.env, ['accounts', 'create', '--name', 'Late payer', '--plan', 'business']);
  const manual = await runCliJson(store.env, ['accounts', 'create', '--name', 'By hand', '--plan', 'free']);
  assert.equal((await runCli(store.env, ['accounts', 'set-plan', manual.id, 'pro'])).code, 0, 'without Stripe the operator sets plans');

  const refused = await runCli({ ...store.env, ...STRIPE }, ['accounts', 'set-plan', manual.id, 'business']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /Plans are Stripe's on this server/);

  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  try {
    await db.migrate();
    await db.write(async (tx) => {
      const base = {
        subscriptionId: 'sub_1',
        paidPlan: 'pro' as const,
        period: 'monthly' as const,
        currentPeriodEnd: TRIAL_END,
        cancelAtPeriodEnd: false,
        updatedAt: 0,
      };
      await saveCustomer(tx, trialing.id, 'cus_1', 0);
      await saveBillingState(tx, {
        ...base,
        accountId: trialing.id,
        customerId: 'cus_1',
        status: 'trialing',
        trialEnd: TRIAL_END,
        paymentFailedAt: null,
        graceUntil: null,
      });
      await saveCustomer(tx, failing.id, 'cus_2', 0);
      await saveBillingState(tx, {
        ...base,
        accountId: failing.id,
        customerId: 'cus_2',
        status: 'past_due',
        trialEnd: null,
        paymentFailedAt: 1,
        graceUntil: GRACE,
      });
    });
  } finally {
    await db.close();
  }
  const list = await runCliJson({ ...store.env, ...STRIPE }, ['accounts', 'list']);
  const byId = new Map<string, any>(list.map((a: any) => [a.id, a]));
  assert.deepEqual(byId.get(trialing.id).billing, { status: 'trialing', grace_until: null, cancel_at_period_end: false });
  assert.equal(byId.get(trialing.id).trial_end, new Date(TRIAL_END).toISOString());
  assert.deepEqual(byId.get(failing.id).billing, {
    status: 'past_due',
    grace_until: new Date(GRACE).toISOString(),
    cancel_at_period_end: false,
  });
  assert.deepEqual([byId.get(manual.id).billing, byId.get(manual.id).trial_end, byId.get(manual.id).plan], [null, null, 'pro']);

  const human = (await runCli(store.env, ['accounts', 'list'])).stdout;
  assert.match(human, /BILLING\s+TRIAL ENDS \(UTC\)/);
  assert.match(human, new RegExp(`${trialing.id}\\s+pro\\s+trialing\\s+2026-12-24 09:30`));
  assert.match(human, new RegExp(`${failing.id}\\s+business\\s+past_due, grace until 2026-12-10 08:00\\s+-`));
});

test("without Stripe, set-plan during a sign-up trial replaces it: the trial's end will not undo the operator's plan", async () => {
  const shop = await runCliJson(store.env, ['accounts', 'create', '--name', 'Signed up', '--plan', 'pro']);
  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  try {
    await db.migrate();
    await db.write((tx) => tx.run('UPDATE accounts SET trial_ends_at = $2 WHERE id = $1', [shop.id, TRIAL_END]));
  } finally {
    await db.close();
  }
  const during = new Map<string, any>((await runCliJson(store.env, ['accounts', 'list'])).map((a: any) => [a.id, a]));
  assert.equal(during.get(shop.id).trial_end, new Date(TRIAL_END).toISOString());
  assert.equal((await runCli(store.env, ['accounts', 'set-plan', shop.id, 'business'])).code, 0);
  const after = new Map<string, any>((await runCliJson(store.env, ['accounts', 'list'])).map((a: any) => [a.id, a]));
  assert.deepEqual([after.get(shop.id).plan, after.get(shop.id).trial_end], ['business', null]);
});
