// Stripe's webhooks (POST /billing/stripe/webhook, decision 0084): verified with the package's own
// stripe.webhooks.constructEvent over the raw body and the endpoint's signing secret, then acted on
// at once (syncCustomer: read back, recorded by event id, applied) so the plan has changed on every
// node before Stripe hears 200. Stripe retries what is not answered 2xx: an event that could not be
// acted on (Stripe unreachable from here) is answered 503, and acted on when it comes again.
import type Stripe from 'stripe';
import type { Services } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';
import { isSignatureError, isStripeError, stripeFor } from './stripe-client.ts';
import { syncCustomer, type SyncOutcome } from './sync.ts';

/** The events that change an account; deployment.md lists them for the endpoint's subscription. */
export const STRIPE_EVENT_TYPES = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

export type StripeWebhookOutcome = { outcome: SyncOutcome | 'ignored'; type: string };

const customerOf = (object: unknown): string | null => {
  const c = (object as { customer?: unknown } | null)?.customer;
  if (typeof c === 'string' && c !== '') return c;
  if (typeof c === 'object' && c !== null && typeof (c as { id?: unknown }).id === 'string') return (c as { id: string }).id;
  return null;
};

export async function receiveStripeWebhook(
  services: Services,
  rawBody: string,
  signature: string | undefined,
): Promise<StripeWebhookOutcome> {
  const config = services.config.stripe;
  if (config === null) throw new AppError('forbidden', 'This readybell does not bill through Stripe, so no Stripe event can be verified.');
  if (signature === undefined || signature === '')
    throw new AppError('forbidden', 'The event is not signed: Stripe sends a Stripe-Signature header with every webhook.');
  const stripe = await stripeFor(config);
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(rawBody, signature, config.webhookSecret);
  } catch (err) {
    if (isSignatureError(err))
      throw new AppError(
        'forbidden',
        'The Stripe-Signature header does not match the body and the signing secret (STRIPE_WEBHOOK_SECRET).',
      );
    throw new AppError('bad-request', 'The body is not a Stripe event.');
  }
  if (!(STRIPE_EVENT_TYPES as readonly string[]).includes(event.type)) return { outcome: 'ignored', type: event.type };
  const customer = customerOf(event.data?.object);
  if (customer === null) return { outcome: 'ignored', type: event.type };
  try {
    return { outcome: await syncCustomer(services, config, customer, { id: event.id, type: event.type }), type: event.type };
  } catch (err) {
    if (isStripeError(err)) {
      services.log.warn({ type: event.type, status: err.statusCode }, 'Stripe did not answer while an event was acted on');
      throw new AppError('unavailable', 'Stripe could not be asked about this event; send it again.', { retry_after: 60 });
    }
    throw err;
  }
}
