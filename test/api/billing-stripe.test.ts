// Billing through Stripe (issue 35 item 4, decisions 0084, 0085) against a local fake of Stripe's
// API, with the official `stripe` package pointed at it (STRIPE_API_URL) and events signed with the
// package's own test-header helper: Checkout → the plan; a duplicate and an out-of-order delivery;
// a failed payment → grace → free → paid again; a cancellation at the period's end; the portal;
// bad and unsigned input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeStripe, FAKE_STRIPE } from '../helpers/fake-stripe.ts';
import { asSession, signInOk } from '../helpers/session.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';

const DAY = 24 * 3600_000;
const clock = new FakeClock();
const stripe = new FakeStripe();
let t: TestApp;
let smtp: LocalSmtp;

before(async () => {
  await stripe.start();
  smtp = await startSmtpServer();
  stripe.now = () => clock.now();
  t = await startTestApp({
    clock,
    env: { ...stripe.env(), BILLING_GRACE_DAYS: '5', TRIAL_DAYS: '0', SMTP_URL: smtp.url, MAIL_FROM: 'readybell <billing@pickup.example>' },
  });
});
after(async () => {
  await t?.close();
  await stripe.close();
  await smtp?.close();
});

const mailsTo = (to: string) => smtp.received.filter((m) => m.envelopeTo.includes(to));

async function runJobs(): Promise<void> {
  for (let n = 0; n < 50; n++) if ((await t.app.runner.runOnce()) === 0) return;
}

const deliver = (e: { body: string; signature: string }) =>
  t.request('POST', '/billing/stripe/webhook', {
    key: null,
    raw: e.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
  });

/** A free account's owner, signed in, and the account's live key. */
async function freeShop(): Promise<{ tenant: Tenant; owner: ReturnType<typeof asSession> }> {
  const tenant = await t.newTenant({ plan: 'free' });
  return { tenant, owner: await ownerOf(tenant) };
}

/** A fresh session: days pass on the fake clock, and an idle session ends. */
const ownerOf = async (tenant: Tenant) => asSession(t, await signInOk(t, tenant.ownerEmail, tenant.ownerPassword));

const liveCall = (tenant: Tenant) => t.request('GET', '/v1/tickets', { key: tenant.liveKey });

/** Checkout for `plan`, paid: the subscription and the session's id. */
async function subscribe(owner: ReturnType<typeof asSession>, plan = 'pro', period = 'monthly') {
  const checkout = await owner('POST', '/v1/billing/checkout', { body: { plan, period } });
  assert.equal(checkout.status, 200, checkout.text);
  const sessionId = String(checkout.body.url).split('/pay/')[1]!;
  return { sessionId, sub: stripe.subscribe(sessionId) };
}

test('checkout: the owner gets a Checkout page; once paid, the event sets the plan and the live key works on the next request', async () => {
  const { tenant, owner } = await freeShop();
  assert.equal((await liveCall(tenant)).body.code, 'plan-required');
  const before = await owner('GET', '/v1/billing');
  assert.equal(before.status, 200);
  assert.deepEqual([before.body.configured, before.body.plan, before.body.status], [true, 'free', null]);
  assert.deepEqual(before.body.prices, [
    { plan: 'pro', period: 'monthly' },
    { plan: 'pro', period: 'yearly' },
    { plan: 'business', period: 'monthly' },
  ]);

  const checkout = await owner('POST', '/v1/billing/checkout', { body: { plan: 'pro', period: 'yearly' } });
  assert.equal(checkout.status, 200, checkout.text);
  assert.match(checkout.body.url, new RegExp(`^${stripe.url}/pay/cs_test_`));
  const session = stripe.sessions.get(String(checkout.body.url).split('/pay/')[1]!)!;
  assert.equal(session.price, FAKE_STRIPE.PRO_YEARLY);
  assert.equal(session.accountId, tenant.accountId);
  assert.match(session.successUrl, /\/staff\/#\/settings\/billing\?checkout=done$/);
  assert.equal(stripe.customers.get(session.customer)!.metadata.account_id, tenant.accountId);
  // Not paid yet: still free.
  assert.equal((await liveCall(tenant)).status, 403);

  const sub = stripe.subscribe(session.id);
  const done = await deliver(stripe.checkoutCompleted(session.id, sub));
  assert.equal(done.status, 200, done.text);
  assert.equal((await liveCall(tenant)).status, 200, 'the live key works on the very next request');
  const after = await owner('GET', '/v1/billing');
  assert.deepEqual(
    [
      after.body.plan,
      after.body.status,
      after.body.paid_plan,
      after.body.period,
      after.body.payment_failed,
      after.body.cancel_at_period_end,
    ],
    ['pro', 'active', 'pro', 'yearly', false, false],
  );
  assert.equal(after.body.next_invoice_at, new Date(sub.items.data[0]!.current_period_end * 1000).toISOString());
  // A second Checkout would start a second subscription: the portal changes the plan instead.
  const again = await owner('POST', '/v1/billing/checkout', { body: { plan: 'business', period: 'monthly' } });
  assert.equal(again.status, 409);
  const portal = await owner('POST', '/v1/billing/portal');
  assert.equal(portal.status, 200);
  assert.equal(portal.body.url, `${stripe.url}/portal/${session.customer}`);
});

test('an event delivered twice is acted on once, and an old event delivered late does not undo a newer state', async () => {
  const { tenant, owner } = await freeShop();
  const { sessionId, sub } = await subscribe(owner);
  const completed = stripe.checkoutCompleted(sessionId, sub);
  assert.equal((await deliver(completed)).status, 200);
  // The owner cancels in the portal; Stripe ends the subscription.
  sub.status = 'canceled';
  const deleted = stripe.event('customer.subscription.deleted', sub);
  assert.equal((await deliver(deleted)).status, 200);
  assert.equal((await liveCall(tenant)).body.code, 'plan-required');
  // The first event again (a retry), and an update from before the cancellation arriving late:
  // both read the subscription back, which is cancelled.
  assert.equal((await deliver(completed)).status, 200);
  const stale = stripe.event('customer.subscription.updated', { ...sub, status: 'active' });
  assert.equal((await deliver(stale)).status, 200);
  assert.equal((await liveCall(tenant)).status, 403);
  assert.equal((await owner('GET', '/v1/billing')).body.plan, 'free');
  // The same event id twice records and mails nothing more: one failure, one mail job.
  sub.status = 'past_due';
  const failed = stripe.event('invoice.payment_failed', { id: 'in_1', object: 'invoice', customer: sub.customer });
  await deliver(failed);
  await deliver(failed);
  const notices = await t.app.services.db.query<{ n: number }>(
    "SELECT COUNT(*) AS n FROM jobs WHERE kind = 'billing_notice' AND account_id = $1",
    [tenant.accountId],
  );
  assert.equal(Number(notices[0]!.n), 1);
  const events = await t.app.services.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM stripe_events WHERE id = $1', [failed.id]);
  assert.equal(Number(events[0]!.n), 1);
});

test('a failed payment: banner state and grace; after BILLING_GRACE_DAYS the free plan (data kept); paid again, the plan is back', async () => {
  const { tenant, owner } = await freeShop();
  const { sessionId, sub } = await subscribe(owner, 'business');
  await deliver(stripe.checkoutCompleted(sessionId, sub));
  const ticket = await t.request('POST', '/v1/tickets', { key: tenant.liveKey, body: {} });
  assert.equal(ticket.status, 201);

  sub.status = 'past_due';
  assert.equal(
    (await deliver(stripe.event('invoice.payment_failed', { id: 'in_2', object: 'invoice', customer: sub.customer }))).status,
    200,
  );
  const failing = await owner('GET', '/v1/billing');
  assert.deepEqual([failing.body.plan, failing.body.payment_failed], ['business', true]);
  assert.equal(failing.body.grace_until, new Date(clock.now() + 5 * DAY).toISOString());
  assert.equal((await liveCall(tenant)).status, 200, 'the plan holds during the grace');
  await runJobs();
  await smtp.waitFor(1);
  const mail = smtp.only(tenant.ownerEmail);
  assert.equal(
    mail.subject,
    `A payment for ${(await t.app.services.db.query<{ name: string }>('SELECT name FROM accounts WHERE id = $1', [tenant.accountId]))[0]!.name}'s readybell plan failed`,
  );
  assert.match(mail.text ?? '', /Business plan/);
  assert.match(mail.text ?? '', /before November 27, 2026/);
  assert.match(mail.text ?? '', /\/staff\/#\/settings\/billing/);

  clock.advance(5 * DAY - 60_000);
  await runJobs();
  assert.equal((await liveCall(tenant)).status, 200, 'a minute before the grace ends');
  clock.advance(60_000);
  await runJobs();
  const lapsed = await liveCall(tenant);
  assert.deepEqual([lapsed.status, lapsed.body.code], [403, 'plan-required']);
  const later = await ownerOf(tenant);
  const free = await later('GET', '/v1/billing');
  assert.deepEqual([free.body.plan, free.body.status, free.body.payment_failed], ['free', 'past_due', false]);
  // Data kept: the owner's session still sees the ticket.
  assert.equal((await later('GET', `/v1/tickets/${ticket.body.id}`)).status, 200);

  sub.status = 'active';
  assert.equal((await deliver(stripe.event('invoice.paid', { id: 'in_3', object: 'invoice', customer: sub.customer }))).status, 200);
  assert.equal((await liveCall(tenant)).status, 200);
  const paid = await later('GET', '/v1/billing');
  assert.deepEqual([paid.body.plan, paid.body.payment_failed, paid.body.grace_until], ['business', false, null]);
});

test('a cancellation takes effect at the period end: the plan holds until Stripe ends the subscription', async () => {
  const { tenant, owner } = await freeShop();
  const { sessionId, sub } = await subscribe(owner);
  await deliver(stripe.checkoutCompleted(sessionId, sub));
  sub.cancel_at_period_end = true;
  await deliver(stripe.event('customer.subscription.updated', sub));
  const cancelling = await owner('GET', '/v1/billing');
  assert.deepEqual([cancelling.body.plan, cancelling.body.cancel_at_period_end, cancelling.body.next_invoice_at], ['pro', true, null]);
  assert.equal(cancelling.body.current_period_end, new Date(sub.items.data[0]!.current_period_end * 1000).toISOString());
  assert.equal((await liveCall(tenant)).status, 200);
  // The period ends; Stripe's customer.subscription.deleted is lost, and the check at the period's end reads it back.
  clock.set(sub.items.data[0]!.current_period_end * 1000);
  sub.status = 'canceled';
  await runJobs();
  assert.equal((await liveCall(tenant)).body.code, 'plan-required');
  assert.equal((await (await ownerOf(tenant))('GET', '/v1/billing')).body.plan, 'free');
});

test('webhooks: unsigned, wrongly signed or malformed events are problems that change nothing; unknown types are acknowledged', async () => {
  const e = stripe.event('invoice.paid', { id: 'in_x', object: 'invoice', customer: 'cus_nobody' });
  const unsigned = await t.request('POST', '/billing/stripe/webhook', {
    key: null,
    raw: e.body,
    headers: { 'content-type': 'application/json' },
  });
  assert.deepEqual([unsigned.status, unsigned.body.code], [403, 'forbidden']);
  const wrong = await deliver({ body: e.body.replace('in_x', 'in_y'), signature: e.signature });
  assert.deepEqual([wrong.status, wrong.body.code], [403, 'forbidden']);
  const garbage = await t.request('POST', '/billing/stripe/webhook', {
    key: null,
    raw: '\u0000{{',
    headers: { 'content-type': 'text/plain', 'stripe-signature': 't=1,v1=00' },
  });
  assert.ok(garbage.status >= 400 && garbage.status < 500, String(garbage.status));
  const notJson = stripe.event('x', {});
  const signedGarbage = { body: 'not json', signature: notJson.signature };
  assert.ok((await deliver(signedGarbage)).status < 500);
  assert.equal((await deliver(stripe.event('charge.refunded', { id: 'ch_1', customer: 'cus_x' }))).status, 200);
  assert.equal((await deliver(e)).status, 200, 'a customer readybell does not know is acknowledged');
});

test('checkout and the portal: bad input is a problem, API keys are refused, Stripe down is 503', async () => {
  const { tenant, owner } = await freeShop();
  for (const body of [
    {},
    { plan: 'free', period: 'monthly' },
    { plan: 'pro', period: 'weekly' },
    { plan: 'pro' },
    'x',
    { plan: 'pro', period: 'monthly', extra: 1 },
  ]) {
    const r = await owner('POST', '/v1/billing/checkout', { body });
    assert.ok(r.status >= 400 && r.status < 500, `${JSON.stringify(body)} → ${r.status}`);
    assert.match(r.headers.get('content-type') ?? '', /problem\+json/);
  }
  const notSold = await owner('POST', '/v1/billing/checkout', { body: { plan: 'business', period: 'yearly' } });
  assert.deepEqual([notSold.status, notSold.body.code], [422, 'validation-failed']);
  const portal = await owner('POST', '/v1/billing/portal');
  assert.deepEqual([portal.status, portal.body.code], [409, 'conflict']);
  const byKey = await t.request('GET', '/v1/billing', { key: t.tenant.liveKey });
  assert.deepEqual([byKey.status, byKey.body.code], [403, 'forbidden']);
  stripe.down = true;
  try {
    const down = await owner('POST', '/v1/billing/checkout', { body: { plan: 'pro', period: 'monthly' } });
    assert.deepEqual([down.status, down.body.code], [503, 'unavailable']);
  } finally {
    stripe.down = false;
  }
  assert.equal((await liveCall(tenant)).status, 403);
});

test('"your trial ends in 3 days": mailed to the owner three days before the end, once; not for a trial that ended early', async () => {
  const { tenant, owner } = await freeShop();
  const { sessionId, sub } = await subscribe(owner);
  const end = clock.now() + 14 * DAY;
  sub.status = 'trialing';
  sub.trial_end = Math.floor(end / 1000);
  sub.items.data[0]!.current_period_end = sub.trial_end;
  await deliver(stripe.checkoutCompleted(sessionId, sub));
  const billing = await owner('GET', '/v1/billing');
  assert.deepEqual([billing.body.plan, billing.body.status, billing.body.trial_days_left], ['pro', 'trialing', 14]);
  assert.equal(billing.body.next_invoice_at, new Date(end).toISOString());
  // The same state told again (an update) schedules nothing more.
  await deliver(stripe.event('customer.subscription.updated', sub));
  clock.advance(11 * DAY - 60_000);
  await runJobs();
  assert.equal(mailsTo(tenant.ownerEmail).length, 0, 'not before three days are left');
  const before = smtp.received.length;
  clock.advance(60_000);
  await runJobs();
  await smtp.waitFor(before + 1);
  const mails = mailsTo(tenant.ownerEmail);
  assert.equal(mails.length, 1);
  assert.match(mails[0]!.subject ?? '', /trial for .* ends in 3 days/);
  assert.match(mails[0]!.text ?? '', /The trial of the Pro plan/);

  // Another shop converts before the notice is due: no mail.
  const other = await freeShop();
  const second = await subscribe(other.owner);
  second.sub.status = 'trialing';
  second.sub.trial_end = Math.floor((clock.now() + 14 * DAY) / 1000);
  await deliver(stripe.checkoutCompleted(second.sessionId, second.sub));
  second.sub.status = 'active';
  second.sub.trial_end = null;
  await deliver(stripe.event('customer.subscription.updated', second.sub));
  clock.advance(12 * DAY);
  await runJobs();
  const mailJobs = await t.app.services.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'mail' AND account_id = $1", [
    other.tenant.accountId,
  ]);
  assert.equal(Number(mailJobs[0]!.n), 0, 'no mail was written for the converted trial');
});

test('Checkout carries what is left of the sign-up trial over; an account whose trial is over gets none', async () => {
  const { tenant, owner } = await freeShop();
  const ends = clock.now() + 5 * DAY;
  await t.app.services.db.write((tx) => tx.run('UPDATE accounts SET trial_ends_at = $2 WHERE id = $1', [tenant.accountId, ends]));
  const { sessionId, sub } = await subscribe(owner);
  assert.deepEqual([stripe.sessions.get(sessionId)!.trialEnd, stripe.sessions.get(sessionId)!.trialDays], [Math.floor(ends / 1000), null]);
  assert.equal(sub.status, 'trialing');
  const over = await freeShop();
  await t.app.services.db.write((tx) =>
    tx.run('UPDATE accounts SET trial_ends_at = $2 WHERE id = $1', [over.tenant.accountId, clock.now() - DAY]),
  );
  const second = await subscribe(over.owner);
  assert.deepEqual([stripe.sessions.get(second.sessionId)!.trialEnd, stripe.sessions.get(second.sessionId)!.trialDays], [null, null]);
});

test('event ids are forgotten a month on by the retention sweep', async () => {
  const e = stripe.event('invoice.paid', { id: 'in_late', object: 'invoice', customer: 'cus_nobody' });
  assert.equal((await deliver(e)).status, 200);
  const kept = async () => (await t.app.services.db.query('SELECT id FROM stripe_events WHERE id = $1', [e.id])).length;
  clock.advance(29 * DAY);
  await t.app.maintenance.sweep();
  assert.equal(await kept(), 1);
  clock.advance(2 * DAY);
  await t.app.maintenance.sweep();
  assert.equal(await kept(), 0);
});

test('deleting the account cancels its subscription at Stripe; Stripe down, the job tries again until it has', async () => {
  const { tenant, owner } = await freeShop();
  const { sessionId, sub } = await subscribe(owner);
  await deliver(stripe.checkoutCompleted(sessionId, sub));
  assert.equal((await liveCall(tenant)).status, 200);
  const account = (await owner('GET', '/v1/account')).body;
  stripe.down = true;
  try {
    const deleted = await owner('DELETE', '/v1/account', { body: { name: account.name } });
    assert.equal(deleted.status, 200, deleted.text);
    await runJobs();
    assert.equal(sub.status, 'active', 'Stripe could not be asked');
  } finally {
    stripe.down = false;
  }
  clock.advance(3600_000);
  await runJobs();
  assert.equal(sub.status, 'canceled');
  const job = await t.app.services.db.query<{ done_at: number | null }>(
    "SELECT done_at FROM jobs WHERE kind = 'account.deletion_requested' AND account_id = $1",
    [tenant.accountId],
  );
  assert.notEqual(job[0]?.done_at ?? null, null);
});
