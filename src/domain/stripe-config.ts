// Billing through Stripe (docs/decisions/0084-billing-through-stripe.md), parsed by loadConfig from
// STRIPE_* once at start: a half-configured Stripe stops the process with a message naming what is
// missing, instead of failing the first owner who presses "Choose a plan".
import type { BillingPeriod, PaidPlan, StripeConfig } from '../core/config.ts';

type Get = (name: string) => string | undefined;

/** The path Stripe's webhooks are POSTed to (the route, and the endpoint to create in Stripe's dashboard). */
export const STRIPE_WEBHOOK_PATH = '/billing/stripe/webhook';

export const PAID_PLANS: readonly PaidPlan[] = ['pro', 'business'];
export const BILLING_PERIODS: readonly BillingPeriod[] = ['monthly', 'yearly'];

/** STRIPE_PRICE_PRO_MONTHLY, STRIPE_PRICE_BUSINESS_YEARLY, … */
export const priceVariable = (plan: PaidPlan, period: BillingPeriod): string =>
  `STRIPE_PRICE_${plan.toUpperCase()}_${period.toUpperCase()}`;

export function loadStripeConfig(get: Get, problems: string[]): StripeConfig | null {
  const secretKey = get('STRIPE_SECRET_KEY');
  const webhookSecret = get('STRIPE_WEBHOOK_SECRET');
  const priceNames = PAID_PLANS.flatMap((plan) => BILLING_PERIODS.map((period) => ({ plan, period, name: priceVariable(plan, period) })));
  const others = ['STRIPE_WEBHOOK_SECRET', 'STRIPE_API_URL', 'STRIPE_PRICE_SMS', ...priceNames.map((p) => p.name)];
  if (secretKey === undefined) {
    const set = others.filter((n) => get(n) !== undefined);
    if (set.length > 0) problems.push(`${set.join(', ')} need STRIPE_SECRET_KEY (or set none of the STRIPE_ variables)`);
    return null;
  }
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(secretKey))
    problems.push('STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)');
  if (webhookSecret === undefined)
    problems.push("STRIPE_SECRET_KEY needs STRIPE_WEBHOOK_SECRET (the webhook endpoint's signing secret, whsec_…)");
  else if (!webhookSecret.startsWith('whsec_'))
    problems.push('STRIPE_WEBHOOK_SECRET must be the signing secret Stripe shows for the endpoint (whsec_…)');
  const prices: StripeConfig['prices'] = [];
  for (const { plan, period, name } of priceNames) {
    const id = get(name);
    if (id === undefined) continue;
    if (!/^price_[A-Za-z0-9_]+$/.test(id)) problems.push(`${name} must be a Stripe price id (price_…)`);
    else prices.push({ plan, period, priceId: id });
  }
  if (prices.length === 0)
    problems.push(`STRIPE_SECRET_KEY needs at least one price: ${priceNames.map((p) => p.name).join(', ')} (a Stripe price id each)`);
  const smsPrice = get('STRIPE_PRICE_SMS') ?? null;
  if (smsPrice !== null && !/^price_[A-Za-z0-9_]+$/.test(smsPrice)) problems.push('STRIPE_PRICE_SMS must be a Stripe price id (price_…)');
  let api: StripeConfig['api'] = null;
  const apiUrl = get('STRIPE_API_URL');
  if (apiUrl !== undefined) {
    try {
      const u = new URL(apiUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      api = {
        protocol: u.protocol === 'http:' ? 'http' : 'https',
        host: u.hostname,
        port: Number(u.port || (u.protocol === 'http:' ? 80 : 443)),
      };
    } catch {
      problems.push(`STRIPE_API_URL must be an http(s) URL such as https://api.stripe.com (got "${apiUrl}")`);
    }
  }
  const meterEvent = get('STRIPE_METER_EVENT_NAME') ?? 'readybell_sms';
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(meterEvent))
    problems.push('STRIPE_METER_EVENT_NAME must be a Stripe meter event name (letters, digits, _ . -)');
  return { secretKey, webhookSecret: webhookSecret ?? '', prices, smsPrice, api, meterEvent };
}
