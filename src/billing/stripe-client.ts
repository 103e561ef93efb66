// The official `stripe` package, built once per configuration. STRIPE_API_URL points it at another
// origin through its own host, port and protocol options (a proxy, or a test's local fake).
import Stripe from 'stripe';
import type { StripeConfig } from '../core/config.ts';
import type { Services } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';

const clients = new WeakMap<StripeConfig, Stripe>();

export function stripeFor(config: StripeConfig): Stripe {
  let client = clients.get(config);
  if (client === undefined) {
    client = new Stripe(config.secretKey, {
      // The package retries with its own idempotency keys; a webhook or a job that still fails is
      // answered or retried by readybell.
      maxNetworkRetries: 2,
      timeout: 10_000,
      telemetry: false,
      ...(config.api === null ? {} : { host: config.api.host, port: config.api.port, protocol: config.api.protocol }),
    });
    clients.set(config, client);
  }
  return client;
}

/** The configured Stripe, or the owner's 409 when this server does not bill through Stripe. */
export function stripeOf(services: Services): { stripe: Stripe; config: StripeConfig } {
  const config = services.config.stripe;
  if (config === null)
    throw new AppError('conflict', 'This readybell does not bill through Stripe: its operator sets plans (readybell accounts set-plan).');
  return { stripe: stripeFor(config), config };
}

/** Stripe did not answer or failed (not a refusal of the request itself): the caller may try again. */
export function stripeTrouble(err: unknown): never {
  if (err instanceof Stripe.errors.StripeError && err.statusCode !== undefined && err.statusCode < 500 && err.statusCode !== 429)
    throw new AppError('conflict', `Stripe refused the request: ${err.message}`);
  throw new AppError('unavailable', 'Stripe did not answer; try again shortly.', { retry_after: 5 });
}
