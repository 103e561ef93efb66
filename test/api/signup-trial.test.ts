// The end of a trial sign-up gave (decisions 0081, 0084) on a fake clock, against a local SMTP
// server: a shop signs up on TRIAL_DAYS=14 and never reaches Checkout; on day 11 its owner gets one
// "your trial ends in 3 days" mail, and on day 14 the account is back on the free plan (its live
// key, cached by then, answers 403 plan-required on the next request). Without Stripe, and with it;
// a shop that subscribed through Checkout meanwhile (the Stripe fake) is not downgraded: Stripe's
// state rules, and the owner still gets one trial mail, not two; a Checkout opened and left does
// not end the trial early.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeStripe } from '../helpers/fake-stripe.ts';
import { asSession, signInOk } from '../helpers/session.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';
import { eventually } from '../helpers/eventually.ts';

const DAY = 24 * 3600_000;
const MINUTE = 60_000;
const PASSWORD = 'a long phrase of my own';
const stripe = new FakeStripe();
let smtp: LocalSmtp;
/** The same instance twice: without Stripe (plans operator-set) and with the Stripe fake. */
const plain = { clock: new FakeClock(), app: undefined as unknown as TestApp };
const billed = { clock: new FakeClock(), app: undefined as unknown as TestApp };
type Instance = typeof plain;
let seq = 0;

before(async () => {
  smtp = await startSmtpServer();
  await stripe.start();
  stripe.now = () => billed.clock.now();
  const env = { SMTP_URL: smtp.url, MAIL_FROM: 'readybell <noreply@pickup.example>', SIGNUP: 'open', TRIAL_DAYS: '14' };
  plain.app = await startTestApp({ clock: plain.clock, env });
  billed.app = await startTestApp({ clock: billed.clock, env: { ...env, ...stripe.env() } });
});
after(async () => {
  await plain.app?.close();
  await billed.app?.close();
  await stripe.close();
  await smtp?.close();
});

const mailsTo = (to: string) => smtp.received.filter((m) => m.envelopeTo.includes(to));
const trialMailsTo = (to: string) => mailsTo(to).filter((m) => /ends in 3 days/.test(m.subject ?? ''));

async function runJobs(i: Instance): Promise<void> {
  for (let n = 0; n < 50; n++) if ((await i.app.app.runner.runOnce()) === 0) return;
}

/** Signs a shop up, follows the emailed verification link, and makes a live key. */
async function signedUpShop(i: Instance): Promise<{ email: string; liveKey: string }> {
  const email = `trial${++seq}-${Date.now()}@example.test`;
  const res = await i.app.request('POST', '/v1/signup', {
    key: null,
    body: { email, password: PASSWORD, shop_name: 'Café Olé', timezone: 'Europe/Paris' },
  });
  assert.equal(res.status, 202, res.text);
  await runJobs(i);
  await eventually(() => mailsTo(email).length >= 1, `the verification mail to ${email}`);
  const link = smtp.linkIn(mailsTo(email)[0]!, 'http://localhost:3000/staff/#/verify/');
  const verified = await i.app.request('POST', '/v1/signup/verify', { key: null, body: { token: link.slice(link.lastIndexOf('/') + 1) } });
  assert.equal(verified.status, 201, verified.text);
  const owner = await ownerOf(i, email);
  const live = await owner('POST', '/v1/api_keys', { body: { mode: 'live' } });
  assert.equal(live.status, 201, live.text);
  return { email, liveKey: String(live.body.secret) };
}

/** A fresh session: days pass on the fake clock, and an idle session ends. */
const ownerOf = async (i: Instance, email: string) => asSession(i.app, await signInOk(i.app, email, PASSWORD));
const liveCall = (i: Instance, key: string) => i.app.request('GET', '/v1/tickets', { key });

/** Days 11 and 14 of the trial: the mail once, then the plan's fall (or not). */
async function throughTheTrial(i: Instance, shop: { email: string; liveKey: string }, startedAt: number) {
  i.clock.set(startedAt + 11 * DAY - MINUTE);
  await runJobs(i);
  assert.equal(trialMailsTo(shop.email).length, 0, 'no trial mail before three days are left');
  i.clock.advance(MINUTE);
  await runJobs(i);
  await eventually(() => trialMailsTo(shop.email).length >= 1, 'the trial mail');
  i.clock.set(startedAt + 14 * DAY - MINUTE);
  await runJobs(i);
  assert.equal((await liveCall(i, shop.liveKey)).status, 200, 'the live key works (and is cached) until the trial ends');
  i.clock.advance(MINUTE);
  await runJobs(i);
}

test('without Stripe: one "3 days" mail on day 11, and on day 14 the plan is free and the live key answers 403 plan-required', async () => {
  const startedAt = plain.clock.now();
  const shop = await signedUpShop(plain);
  assert.equal((await liveCall(plain, shop.liveKey)).status, 200, 'the trial is of the paid plan');
  const first = await (await ownerOf(plain, shop.email))('GET', '/v1/billing');
  assert.deepEqual(
    [first.body.configured, first.body.plan, first.body.status, first.body.trial_days_left, first.body.trial_end],
    [false, 'pro', null, 14, new Date(startedAt + 14 * DAY).toISOString()],
  );

  await throughTheTrial(plain, shop, startedAt);
  const mails = trialMailsTo(shop.email);
  assert.equal(mails.length, 1, 'one trial mail');
  assert.match(mails[0]!.subject ?? '', /Café Olé/);
  assert.match(mails[0]!.text ?? '', /The trial of the Pro plan/);
  assert.match(mails[0]!.text ?? '', /December 6, 2026/, "the trial's end, in the shop's time zone");
  // No card was given at sign-up: the mail asks for a plan instead of promising a charge.
  assert.match(mails[0]!.text ?? '', /choose a plan in Billing and pay by card/);
  assert.doesNotMatch(mails[0]!.text ?? '', /is charged/);

  const after = await liveCall(plain, shop.liveKey);
  assert.equal(after.status, 403, 'the cached key answers with the new plan on the next request');
  assert.equal(after.body.code, 'plan-required');
  const billing = await (await ownerOf(plain, shop.email))('GET', '/v1/billing');
  assert.deepEqual([billing.body.plan, billing.body.trial_days_left], ['free', null]);
  // The data is kept: the owner still signs in and finds the shop's queue.
  const queues = await (await ownerOf(plain, shop.email))('GET', '/v1/queues');
  assert.equal(queues.status, 200, queues.text);
  assert.deepEqual(
    queues.body.data.map((q: { name: string }) => q.name),
    ['A'],
  );
  // Days later nothing more is sent.
  plain.clock.advance(3 * DAY);
  await runJobs(plain);
  assert.equal(trialMailsTo(shop.email).length, 1);
});

test('with Stripe: a card-less trial falls back to free on day 14; a shop that subscribed through Checkout meanwhile is not downgraded', async () => {
  const startedAt = billed.clock.now();
  const cardless = await signedUpShop(billed);
  const paying = await signedUpShop(billed);
  // The first shop opens Checkout and leaves it: an event for its customer, which has no
  // subscription at Stripe, leaves the sign-up trial running.
  const left = await (await ownerOf(billed, cardless.email))('POST', '/v1/billing/checkout', { body: { plan: 'pro', period: 'monthly' } });
  assert.equal(left.status, 200, left.text);
  const customer = stripe.sessions.get(String(left.body.url).split('/pay/')[1]!)!.customer;
  const stray = stripe.event('customer.subscription.deleted', { id: 'sub_gone', object: 'subscription', customer });
  const strayDone = await billed.app.request('POST', '/billing/stripe/webhook', {
    key: null,
    raw: stray.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': stray.signature },
  });
  assert.equal(strayDone.status, 200, strayDone.text);
  assert.equal((await liveCall(billed, cardless.liveKey)).status, 200, 'no subscription yet: the sign-up trial holds');
  const abandoned = await (await ownerOf(billed, cardless.email))('GET', '/v1/billing');
  assert.deepEqual([abandoned.body.plan, abandoned.body.status, abandoned.body.trial_days_left], ['pro', null, 14]);
  // The second shop subscribes on day 2: Checkout carries the 12 days left over to Stripe.
  billed.clock.advance(2 * DAY);
  const checkout = await (await ownerOf(billed, paying.email))('POST', '/v1/billing/checkout', {
    body: { plan: 'pro', period: 'monthly' },
  });
  assert.equal(checkout.status, 200, checkout.text);
  const sessionId = String(checkout.body.url).split('/pay/')[1]!;
  const sub = stripe.subscribe(sessionId);
  assert.equal(sub.status, 'trialing');
  const completed = stripe.checkoutCompleted(sessionId, sub);
  const done = await billed.app.request('POST', '/billing/stripe/webhook', {
    key: null,
    raw: completed.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': completed.signature },
  });
  assert.equal(done.status, 200, done.text);
  const mid = await (await ownerOf(billed, paying.email))('GET', '/v1/billing');
  assert.deepEqual([mid.body.status, mid.body.trial_days_left], ['trialing', 12]);

  await throughTheTrial(billed, cardless, startedAt);
  assert.equal(trialMailsTo(cardless.email).length, 1);
  assert.equal((await liveCall(billed, cardless.liveKey)).body.code, 'plan-required');

  // The subscriber heard of its trial's end once too (Stripe's trial now, not a second mail), and
  // keeps the paid plan at and after the sign-up trial's end: Stripe charges then.
  assert.equal(trialMailsTo(paying.email).length, 1, 'one trial mail for the account that subscribed');
  assert.match(
    trialMailsTo(paying.email)[0]!.text ?? '',
    /the card you gave at checkout is charged/,
    'a Stripe trial has a card to charge',
  );
  assert.equal((await liveCall(billed, paying.liveKey)).status, 200, 'not downgraded: the subscription decides');
  billed.clock.advance(DAY);
  await runJobs(billed);
  const later = await (await ownerOf(billed, paying.email))('GET', '/v1/billing');
  assert.equal(later.body.plan, 'pro');
  assert.equal((await liveCall(billed, paying.liveKey)).status, 200);
});
