// The account follows its subscription as Stripe says it is now (decisions 0084, 0085). Whatever
// event arrives, in whatever order and however often, the subscription is read back from Stripe
// (before any transaction: a call to Stripe never holds the store's writer), and one transaction
// records the event's id (a second delivery of it changes nothing), keeps what was read, and sets
// the plan. The plan lives in accounts.plan, which sessions read on every request and API keys'
// cache drops on every node when it changes (setAccountPlan → credentialsChanged → the bus), so the
// next request on any node answers with it. What is due later is a job in the same transaction:
// the end of a failed payment's grace and of a cancelled period (a check that reads Stripe again),
// and the two mails.
import type Stripe from 'stripe';
import type { Services } from '../core/ctx.ts';
import type { Tx } from '../core/db.ts';
import type { StripeConfig } from '../core/config.ts';
import { defineJobKind } from '../core/job-registry.ts';
import { nextFacts, planFrom, trialInForce, type BillingFacts, type SubscriptionFacts } from '../domain/billing-state.ts';
import {
  getBillingByCustomer,
  getSignupTrialEnd,
  recordStripeEvent,
  saveBillingState,
  saveCustomer,
  trialNotice,
  type BillingRecord,
} from '../store/billing.ts';
import { enqueueJob, newJob } from '../store/outbox.ts';
import { getAccount, setAccountPlan } from '../store/tenancy.ts';
import { writeThenHooks } from '../write/after-commit.ts';
import { queueBillingMail } from './notices.ts';
import { stripeFor } from './stripe-client.ts';

/** Reads the customer's subscription back from Stripe and applies it (the grace's and the period's end). */
export const BILLING_CHECK_JOB = defineJobKind<{ customer_id: string }>('billing_check', 'webhook');

/** A subscription that is over: any live one of the customer's is the one that counts. */
const ENDED = new Set(['canceled', 'incomplete_expired']);

/** The customer's subscription that decides the plan: the newest not ended, else the newest. */
export function pickSubscription(subs: readonly Stripe.Subscription[]): Stripe.Subscription | null {
  const newest = [...subs].sort((a, b) => b.created - a.created);
  return newest.find((s) => !ENDED.has(s.status)) ?? newest[0] ?? null;
}

const ms = (seconds: number | null | undefined): number | null => (seconds == null ? null : seconds * 1000);

export function factsOf(sub: Stripe.Subscription): SubscriptionFacts {
  const items = sub.items?.data ?? [];
  // Since Stripe's 2025 API versions the period is per item; earlier ones had it on the subscription.
  const periodEnds = items.map((i) => i.current_period_end).filter((n): n is number => typeof n === 'number');
  const legacy = (sub as unknown as { current_period_end?: number }).current_period_end;
  return {
    id: sub.id,
    status: sub.status,
    priceIds: items.map((i) => i.price?.id).filter((id): id is string => typeof id === 'string'),
    trialEnd: ms(sub.trial_end),
    currentPeriodEnd: periodEnds.length > 0 ? ms(Math.max(...periodEnds)) : ms(legacy),
    cancelAtPeriodEnd: sub.cancel_at_period_end === true,
  };
}

export type SyncOutcome = 'applied' | 'duplicate' | 'unknown-customer';

/**
 * Reads the customer's subscriptions from Stripe and applies the one that counts; `event` (a
 * webhook's) is recorded in the same transaction, and a second delivery of it applies nothing.
 */
export async function syncCustomer(
  services: Services,
  config: StripeConfig,
  customerId: string,
  event: { id: string; type: string } | null,
): Promise<SyncOutcome> {
  const list = await (await stripeFor(config)).subscriptions.list({ customer: customerId, status: 'all', limit: 20 });
  const sub = pickSubscription(list.data);
  const now = services.clock.now();
  return writeThenHooks(services.db, async (tx) => {
    if (event !== null && !(await recordStripeEvent(tx, event.id, event.type, now))) return 'duplicate';
    let billing = await getBillingByCustomer(tx, customerId);
    // A customer created by Checkout whose answer never reached the store: the subscription names its account.
    const named = sub?.metadata?.account_id;
    if (billing === undefined && typeof named === 'string' && (await getAccount(tx, named)) !== undefined) {
      await saveCustomer(tx, named, customerId, now);
      billing = await getBillingByCustomer(tx, customerId);
    }
    if (billing === undefined) return 'unknown-customer';
    await applyFacts(tx, services, config, billing, sub === null ? null : factsOf(sub), now);
    return 'applied';
  });
}

async function applyFacts(
  tx: Tx,
  services: Services,
  config: StripeConfig,
  before: BillingRecord,
  sub: SubscriptionFacts | null,
  now: number,
): Promise<void> {
  const facts = nextFacts(config, before, sub, now, services.config.billingGraceDays);
  await saveBillingState(tx, { ...before, ...facts, updatedAt: now });
  const account = await getAccount(tx, before.accountId);
  if (account === undefined) return;
  // No subscription at Stripe (a Checkout opened and left): a sign-up trial still running keeps its
  // plan, and its own end (signup-trial.ts) ends it (decision 0084).
  const keepTrial = facts.status === null && trialInForce(undefined, await getSignupTrialEnd(tx, account.id), now) !== null;
  const plan = keepTrial ? account.plan : planFrom(facts, now);
  if (plan !== account.plan) {
    await setAccountPlan(tx, account.id, plan);
    services.log.info({ account: account.id, plan, status: facts.status }, 'plan set from Stripe');
  }
  await scheduleFollowUps(tx, services, before, facts, now);
}

async function scheduleFollowUps(tx: Tx, services: Services, before: BillingRecord, facts: BillingFacts, now: number): Promise<void> {
  const accountId = before.accountId;
  const check = (at: number, why: string) =>
    enqueueJob(
      tx,
      newJob(BILLING_CHECK_JOB, `billing_check:${accountId}:${why}:${at}`, { customer_id: before.customerId }, at, now, { accountId }),
    );
  // A payment failed just now: the owner hears of it once per failure, and the grace's end is checked.
  if (facts.paymentFailedAt !== null && before.paymentFailedAt === null) {
    await queueBillingMail(tx, services, {
      accountId,
      kind: 'payment_failed',
      key: `payment_failed:${accountId}:${facts.paymentFailedAt}`,
      now,
    });
  }
  if (facts.graceUntil !== null) await check(facts.graceUntil, 'grace');
  // Stripe ends the subscription at the period's end and says so; asked again then, in case that event is lost.
  if (facts.cancelAtPeriodEnd && facts.currentPeriodEnd !== null) await check(facts.currentPeriodEnd, 'period');
  if (facts.status === 'trialing' && facts.trialEnd !== null && facts.trialEnd > now) {
    await queueBillingMail(tx, services, trialNotice(accountId, facts.trialEnd, now));
  }
}
