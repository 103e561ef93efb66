// The owner's billing (decision 0084, agreed with the staff page's Billing screen): what the
// account pays for and how its subscription stands, where Checkout or the customer portal is, and
// the body that chooses a plan.
import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from './schema-parts.ts';
import { PLANS } from '../core/tenancy.ts';
import { BILLING_PERIODS, PAID_PLANS } from '../domain/stripe-config.ts';

export const BillingSchema = Type.Object(
  {
    object: Type.Literal('billing'),
    configured: Type.Boolean({ description: 'Whether this server bills through Stripe; false: the operator sets plans' }),
    plan: StringEnum(PLANS, { description: "The account's plan now" }),
    status: Nullable(
      Type.String({
        description: "Stripe's subscription status (`trialing`, `active`, `past_due`, `canceled`, …); null: no subscription",
        examples: ['active'],
      }),
    ),
    paid_plan: Nullable(StringEnum(PAID_PLANS, { description: 'The plan the subscription pays for' })),
    period: Nullable(StringEnum(BILLING_PERIODS)),
    trial_end: Nullable(Timestamp),
    trial_days_left: Nullable(Type.Integer({ minimum: 0, description: 'Whole days left of the trial; null when not trialing' })),
    next_invoice_at: Nullable(Timestamp),
    cancel_at_period_end: Type.Boolean({ description: 'The subscription ends at `current_period_end` (the plan holds until then)' }),
    current_period_end: Nullable(Timestamp),
    payment_failed: Type.Boolean({ description: 'A payment failed: update the card in the portal before `grace_until`' }),
    grace_until: Nullable(Timestamp),
    sms_this_month: Type.Integer({ minimum: 0, description: 'SMS sent by live tickets since the 1st of this month (UTC)' }),
    prices: Type.Array(
      Type.Object({ plan: StringEnum(PAID_PLANS), period: StringEnum(BILLING_PERIODS) }, { additionalProperties: false }),
      { description: 'The plans and periods the operator sells' },
    ),
  },
  { additionalProperties: false, $id: 'Billing', description: "The account's plan and its subscription at Stripe" },
);

export const BillingRedirectSchema = Type.Object(
  { url: Type.String({ description: "Stripe's page to send the browser to", examples: ['https://checkout.stripe.com/c/pay/cs_test_a1'] }) },
  { additionalProperties: false },
);

export const CheckoutBody = Type.Object(
  {
    plan: StringEnum(PAID_PLANS),
    period: StringEnum(BILLING_PERIODS),
  },
  { additionalProperties: false },
);
