// The official `stripe` package, built once per configuration. STRIPE_API_URL points it at another
// origin through its own host, port and protocol options (a proxy, or a test's local fake).
// Loaded the first time Stripe is asked something: its 218 modules cost about 0.2 s of CPU to
// import, which a readybell that does not bill through Stripe (and every test process) would
// otherwise pay at each start. An error from Stripe can only exist once it is loaded.
import type Stripe from 'stripe';
import type { StripeConfig } from '../core/config.ts';
import type { Services } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';

type StripeModule = typeof import('stripe').default;
let loaded: StripeModule | undefined;
const clients = new WeakMap<StripeConfig, Stripe>();

export async function stripeFor(config: StripeConfig): Promise<Stripe> {
  let client = clients.get(config);
  if (client === undefined) {
    loaded ??= (await import('stripe')).default;
    client = new loaded(config.secretKey, {
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
export async function stripeOf(services: Services): Promise<{ stripe: Stripe; config: StripeConfig }> {
  const config = services.config.stripe;
  if (config === null)
    throw new AppError('conflict', 'This readybell does not bill through Stripe: its operator sets plans (readybell accounts set-plan).');
  return { stripe: await stripeFor(config), config };
}

/** An error the Stripe package raised: a refusal, a failure to reach Stripe, a bad signature. */
export function isStripeError(err: unknown): err is Stripe.errors.StripeError {
  return loaded !== undefined && err instanceof loaded.errors.StripeError;
}

/** A webhook whose Stripe-Signature does not match its body and the signing secret. */
export function isSignatureError(err: unknown): boolean {
  return loaded !== undefined && err instanceof loaded.errors.StripeSignatureVerificationError;
}

/** Stripe did not answer or failed (not a refusal of the request itself): the caller may try again. */
export function stripeTrouble(err: unknown): never {
  if (isStripeError(err) && err.statusCode !== undefined && err.statusCode < 500 && err.statusCode !== 429)
    throw new AppError('conflict', `Stripe refused the request: ${err.message}`);
  throw new AppError('unavailable', 'Stripe did not answer; try again shortly.', { retry_after: 5 });
}
