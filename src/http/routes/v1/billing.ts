// /v1/billing: the owner's side of billing through Stripe (the staff page's Billing screen,
// decision 0084). Staff sessions with the owner role only; API keys get 403. Stripe is asked before
// a write's transaction, never inside one.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../core/ctx.ts';
import { openBillingPortal, prepareCheckout, readBilling, recordCheckout } from '../../../billing/account-billing.ts';
import { BillingRedirectSchema, BillingSchema, CheckoutBody } from '../../../contract/billing-schemas.ts';
import { Ref } from '../../../contract/schema-parts.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const TAG = 'Billing';
const WHO = 'The owner role in the staff page; API keys get 403.';
const Redirect = { description: "Stripe's page: send the browser there", schema: BillingRedirectSchema };
const NOT_CONFIGURED = 'This server does not bill through Stripe (its operator sets plans), or the account already has a subscription.';

export function registerBillingRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);

  app.get(
    '/billing',
    {
      schema: operation({
        operationId: 'getBilling',
        tag: TAG,
        access: 'staff',
        summary: "Get the account's plan and subscription",
        description: `The plan, the subscription's status, trial days left, the next invoice and this month's SMS. ${WHO}`,
        answers: { 200: { description: "The account's billing", schema: Ref(BillingSchema) } },
      }),
    },
    async (req) => readBilling({ ctx: ctxFor(req, services), input: undefined }),
  );

  app.post(
    '/billing/checkout',
    {
      schema: operation({
        operationId: 'createBillingCheckout',
        tag: TAG,
        access: 'staff',
        summary: 'Subscribe through Stripe Checkout',
        description: `A Checkout page for the plan and period; Stripe sends the browser back to the Billing screen. ${WHO}`,
        body: CheckoutBody,
        answers: { 200: Redirect },
        problems: {
          'validation-failed': 'The plan is not sold for that period here.',
          conflict: NOT_CONFIGURED,
          unavailable: 'Stripe did not answer.',
        },
      }),
    },
    async (req, reply) => {
      const ctx = ctxFor(req, services);
      const prepared = await prepareCheckout(ctx, req.body);
      return runWrite(req, reply, ctx, { status: 200, verb: recordCheckout, input: prepared });
    },
  );

  app.post(
    '/billing/portal',
    {
      schema: operation({
        operationId: 'createBillingPortal',
        tag: TAG,
        access: 'staff',
        summary: "Open Stripe's customer portal",
        description: `Change the card, the plan or the period, or cancel (at the period's end). ${WHO}`,
        answers: { 200: Redirect },
        problems: {
          conflict: 'Stripe is not configured here, or the account has never subscribed.',
          unavailable: 'Stripe did not answer.',
        },
      }),
    },
    async (req) => openBillingPortal(ctxFor(req, services)),
  );
}
