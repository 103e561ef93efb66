// What an account's plan is, given what Stripe says about its subscription (decisions 0084, 0085).
// Pure: billing/sync.ts reads the subscription back from Stripe and applies the answer.
import type { BillingPeriod, PaidPlan, StripeConfig } from '../core/config.ts';
import type { Plan } from '../core/tenancy.ts';

const DAY_MS = 24 * 3600_000;

/** A subscription as readybell needs it (times in ms); null when the customer has none. */
export type SubscriptionFacts = {
  id: string;
  status: string;
  priceIds: string[];
  trialEnd: number | null;
  currentPeriodEnd: number | null;
  cancelAtPeriodEnd: boolean;
};

/** What is kept: the subscription's facts, its paid plan, and the grace a failed payment opened. */
export type BillingFacts = {
  subscriptionId: string | null;
  status: string | null;
  paidPlan: PaidPlan | null;
  period: BillingPeriod | null;
  trialEnd: number | null;
  currentPeriodEnd: number | null;
  cancelAtPeriodEnd: boolean;
  paymentFailedAt: number | null;
  graceUntil: number | null;
};

/** Statuses in which the plan is paid for (a trial counts: its end is when the first payment is due). */
const PAYING = new Set(['active', 'trialing']);
/** Statuses of a payment that failed: the plan holds for the grace, then falls back to free. */
const FAILING = new Set(['past_due', 'unpaid']);

/** The plan and period of a price id among the operator's prices; null for a price readybell does not sell. */
export function priceOf(config: StripeConfig, priceId: string): { plan: PaidPlan; period: BillingPeriod } | null {
  const p = config.prices.find((x) => x.priceId === priceId);
  return p === undefined ? null : { plan: p.plan, period: p.period };
}

/**
 * The facts to keep after reading the subscription back at `now`: a failure's grace starts the
 * first time the subscription is seen failing and is kept while it fails; anything else clears it.
 */
export function nextFacts(
  config: StripeConfig,
  before: BillingFacts | null,
  sub: SubscriptionFacts | null,
  now: number,
  graceDays: number,
): BillingFacts {
  const priced = sub?.priceIds.map((id) => priceOf(config, id)).find((p) => p !== null) ?? null;
  const failing = sub !== null && FAILING.has(sub.status);
  const stillFailing = failing && before?.paymentFailedAt != null;
  return {
    subscriptionId: sub?.id ?? null,
    status: sub?.status ?? null,
    paidPlan: priced?.plan ?? null,
    period: priced?.period ?? null,
    trialEnd: sub?.trialEnd ?? null,
    currentPeriodEnd: sub?.currentPeriodEnd ?? null,
    cancelAtPeriodEnd: sub?.cancelAtPeriodEnd ?? false,
    paymentFailedAt: failing ? (stillFailing ? before!.paymentFailedAt : now) : null,
    graceUntil: failing ? (stillFailing && before!.graceUntil !== null ? before!.graceUntil : now + graceDays * DAY_MS) : null,
  };
}

/** The plan the account is on: the paid plan while paid for or within a failure's grace, else free. */
export function planFrom(facts: BillingFacts, now: number): Plan {
  if (facts.paidPlan === null || facts.status === null) return 'free';
  if (PAYING.has(facts.status)) return facts.paidPlan;
  if (FAILING.has(facts.status) && facts.graceUntil !== null && now < facts.graceUntil) return facts.paidPlan;
  return 'free';
}

/** Whole days left of a trial at `now` (rounded up: "1 day left" until it ends); null when not trialing. */
export function trialDaysLeft(facts: Pick<BillingFacts, 'status' | 'trialEnd'>, now: number): number | null {
  if (facts.status !== 'trialing' || facts.trialEnd === null) return null;
  return Math.max(0, Math.ceil((facts.trialEnd - now) / DAY_MS));
}

/**
 * The end of the trial the account is on at `now`, if any: once a subscription has been read back
 * from Stripe its state rules (its trial, or none); before that, the trial sign-up gave (decision
 * 0081, `signupTrialEnd`).
 */
export function trialInForce(
  billing: Pick<BillingFacts, 'status' | 'trialEnd'> | undefined,
  signupTrialEnd: number | null,
  now: number,
): number | null {
  const end = stripeRules(billing) ? (billing!.status === 'trialing' ? billing!.trialEnd : null) : signupTrialEnd;
  return end !== null && now < end ? end : null;
}

/** Whether a subscription read back from Stripe decides the account's plan (no sign-up trial does then). */
export const stripeRules = (billing: Pick<BillingFacts, 'status'> | undefined): boolean => billing?.status != null;

/** When the "your trial ends in 3 days" mail is due. */
export const TRIAL_NOTICE_MS = 3 * DAY_MS;

/** The first day of `now`'s month, UTC: the Billing screen's SMS count starts there. */
export function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
