// The owner's billing (the staff page's Billing screen, decision 0084): what the account pays for,
// a Checkout Session to subscribe, a customer portal session to change card, plan or period and to
// cancel. Owners only, in a staff session; API keys get 403. Stripe is asked before the write's
// transaction, never inside it.
import type { Static } from 'typebox';
import type { Action, Ctx, Read, Services } from '../core/ctx.ts';
import { readerOf } from '../core/ctx.ts';
import type { BillingPeriod, PaidPlan } from '../core/config.ts';
import { AppError } from '../domain/errors.ts';
import { requireRole } from '../actions/roles.ts';
import { monthStart, planFrom, stripeRules, trialDaysLeft } from '../domain/billing-state.ts';
import { countSmsUsage, getBilling, getSignupTrialEnd, saveCustomer } from '../store/billing.ts';
import { getAccount } from '../store/tenancy.ts';
import { iso } from '../contract/present.ts';
import type { BillingSchema } from '../contract/billing-schemas.ts';
import { stripeOf, stripeTrouble } from './stripe-client.ts';
import { billingScreenUrl } from './notices.ts';

export type BillingObject = Static<typeof BillingSchema>;

export function requireBillingOwner(ctx: Ctx): void {
  if (ctx.actor.kind === 'api_key')
    throw new AppError('forbidden', "API keys cannot manage the account's billing; an owner does that in the staff page.");
  requireRole(ctx, 'owner');
}

/** Statuses of a subscription that is still the account's: a second Checkout would start a second one. */
const CURRENT = new Set(['active', 'trialing', 'past_due', 'unpaid', 'incomplete', 'paused']);

export const readBilling: Read<void, BillingObject> = async ({ ctx }) => {
  requireBillingOwner(ctx);
  const q = readerOf(ctx);
  const now = ctx.services.clock.now();
  const account = (await getAccount(q, ctx.accountId))!;
  const b = await getBilling(q, ctx.accountId);
  const config = ctx.services.config.stripe;
  const cancelling = b?.cancelAtPeriodEnd === true;
  // Stripe's trial once a subscription was read back; before that, sign-up's while it lasts (0084).
  const signupTrialEnd = stripeRules(b) ? null : await getSignupTrialEnd(q, ctx.accountId);
  const trial =
    b !== undefined && stripeRules(b)
      ? b
      : { status: signupTrialEnd !== null && now < signupTrialEnd ? 'trialing' : null, trialEnd: signupTrialEnd };
  const paying = b?.status === 'active' || b?.status === 'trialing' || b?.status === 'past_due' || b?.status === 'unpaid';
  return {
    object: 'billing',
    configured: config !== null,
    plan: account.plan,
    status: b?.status ?? null,
    paid_plan: b?.paidPlan ?? null,
    period: b?.period ?? null,
    trial_end: iso(trial.trialEnd),
    trial_days_left: trialDaysLeft(trial, now),
    next_invoice_at: paying && !cancelling ? iso(b!.status === 'trialing' ? b!.trialEnd : b!.currentPeriodEnd) : null,
    cancel_at_period_end: cancelling,
    current_period_end: iso(b?.currentPeriodEnd ?? null),
    payment_failed: b?.paymentFailedAt != null && b !== undefined && planFrom(b, now) !== 'free',
    grace_until: iso(b?.graceUntil ?? null),
    sms_this_month: await countSmsUsage(q, ctx.accountId, monthStart(now)),
    prices: (config?.prices ?? []).map((p) => ({ plan: p.plan, period: p.period })),
  };
};

export type CheckoutInput = { plan: PaidPlan; period: BillingPeriod };
export type PreparedCheckout = { customerId: string; url: string };

/**
 * Asks Stripe for a Checkout Session for the plan and period (the account's customer first, made
 * once: Stripe's idempotency key is the account's id), with the trial left (trialFor); SMS usage
 * metered for the business plan when STRIPE_PRICE_SMS is set.
 */
export async function prepareCheckout(ctx: Ctx, input: CheckoutInput): Promise<PreparedCheckout> {
  requireBillingOwner(ctx);
  const { stripe, config } = await stripeOf(ctx.services);
  const price = config.prices.find((p) => p.plan === input.plan && p.period === input.period);
  if (price === undefined)
    throw new AppError('validation-failed', `The ${input.plan} plan is not sold ${input.period} here.`, {
      errors: [{ pointer: '/period', detail: `choose one of the prices GET /v1/billing lists` }],
    });
  const { db } = ctx.services;
  const existing = await getBilling(db, ctx.accountId);
  if (existing?.status != null && CURRENT.has(existing.status))
    throw new AppError(
      'conflict',
      'The account has a subscription already: change its plan or period in the customer portal (POST /v1/billing/portal).',
    );
  const account = (await getAccount(db, ctx.accountId))!;
  try {
    const customerId =
      existing?.customerId ??
      (
        await stripe.customers.create(
          { name: account.name, metadata: { account_id: account.id } },
          { idempotencyKey: `readybell-customer-${account.id}` },
        )
      ).id;
    const trial = await trialFor(ctx, existing?.subscriptionId ?? null);
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customerId,
      client_reference_id: account.id,
      line_items: [
        { price: price.priceId, quantity: 1 },
        ...(input.plan === 'business' && config.smsPrice !== null ? [{ price: config.smsPrice }] : []),
      ],
      subscription_data: {
        metadata: { account_id: account.id },
        ...trial,
      },
      success_url: billingScreenUrl(ctx.services, '?checkout=done'),
      cancel_url: billingScreenUrl(ctx.services, '?checkout=cancelled'),
    });
    if (session.url === null) throw new AppError('unavailable', 'Stripe made no Checkout page; try again shortly.', { retry_after: 5 });
    return { customerId, url: session.url };
  } catch (err) {
    if (err instanceof AppError) throw err;
    return stripeTrouble(err);
  }
}

/** Stripe takes a trial end at least 48 hours ahead at Checkout. */
const MIN_TRIAL_MS = 48 * 3600_000;

/**
 * The trial a first subscription starts with: what is left of the sign-up trial (TRIAL_DAYS from
 * sign-up, decision 0081), or TRIAL_DAYS for an account that never had one; none for an account
 * that subscribed before or whose trial is over.
 */
async function trialFor(ctx: Ctx, subscriptionId: string | null): Promise<{ trial_end?: number; trial_period_days?: number }> {
  if (subscriptionId !== null) return {};
  const signupTrialEnd = await getSignupTrialEnd(ctx.services.db, ctx.accountId);
  if (signupTrialEnd !== null)
    return signupTrialEnd - ctx.services.clock.now() >= MIN_TRIAL_MS ? { trial_end: Math.floor(signupTrialEnd / 1000) } : {};
  const days = ctx.services.config.signup.trialDays;
  return days > 0 ? { trial_period_days: days } : {};
}

/** Keeps the account's Stripe customer (the write's transaction) and answers where Checkout is. */
export const recordCheckout: Action<PreparedCheckout, { url: string }> = async ({ ctx, input }) => {
  requireBillingOwner(ctx);
  await saveCustomer(ctx.tx, ctx.accountId, input.customerId, ctx.services.clock.now());
  return { url: input.url };
};

/** A customer portal session: card, plan, period and cancellation are changed at Stripe. */
export async function openBillingPortal(ctx: Ctx): Promise<{ url: string }> {
  requireBillingOwner(ctx);
  const { stripe } = await stripeOf(ctx.services);
  const b = await getBilling(ctx.services.db, ctx.accountId);
  if (b === undefined)
    throw new AppError('conflict', 'The account has no subscription yet: choose a plan first (POST /v1/billing/checkout).');
  try {
    const session = await stripe.billingPortal.sessions.create({ customer: b.customerId, return_url: billingScreenUrl(ctx.services) });
    return { url: session.url };
  } catch (err) {
    return stripeTrouble(err);
  }
}

/**
 * For an account being deleted (issue 35 item 5): its subscription is cancelled at Stripe now, so
 * nothing more is invoiced. Nothing to do without Stripe or a subscription; a subscription Stripe
 * no longer knows is as good as cancelled. Throws `unavailable` when Stripe could not be asked.
 */
export async function cancelSubscriptionFor(services: Services, accountId: string): Promise<void> {
  const config = services.config.stripe;
  if (config === null) return;
  const b = await getBilling(services.db, accountId);
  if (b === undefined) return;
  const { stripe } = await stripeOf(services);
  try {
    const subs = await stripe.subscriptions.list({ customer: b.customerId, status: 'all', limit: 20 });
    for (const s of subs.data) {
      if (s.status === 'canceled' || s.status === 'incomplete_expired') continue;
      await stripe.subscriptions.cancel(s.id);
    }
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return;
    stripeTrouble(err);
  }
}
