// SMS usage to Stripe (decision 0085): each SMS a live ticket's ring sent is one billing meter
// event, reported by the job written with its sms_usage row (store/billing.ts). The meter event's
// `identifier` is the ring's id, so Stripe counts it once however often the job runs: a node killed
// after Stripe accepted it and before the job was marked done runs it again, and Stripe ignores
// the repeat.
import type { Services } from '../core/ctx.ts';
import type { TaskResult } from '../core/job-registry.ts';
import { getBilling, type SmsUsagePayload } from '../store/billing.ts';
import { isStripeError, stripeFor } from './stripe-client.ts';

/** The meter event's identifier for one SMS: unique per ring, stable across the job's attempts. */
export const smsMeterIdentifier = (ringId: string): string => `sms_${ringId}`;

/** Stripe takes meter events up to 35 days old; an older one (a job stuck that long) is given up. */
const OLDEST_MS = 35 * 24 * 3600_000;

export async function smsUsageJob(services: Services, p: SmsUsagePayload): Promise<TaskResult> {
  const config = services.config.stripe;
  // Without Stripe, or for an account with no Stripe customer (a plan the operator set), the
  // count on the Billing screen is all there is.
  if (config === null) return;
  const billing = await getBilling(services.db, p.account_id);
  if (billing === undefined) return;
  if (services.clock.now() - p.sent_at > OLDEST_MS) {
    services.log.warn({ account: p.account_id, ring: p.ring_id }, 'SMS usage too old for Stripe, not reported');
    return;
  }
  try {
    await (await stripeFor(config)).billing.meterEvents.create({
      event_name: config.meterEvent,
      identifier: smsMeterIdentifier(p.ring_id),
      timestamp: Math.floor(p.sent_at / 1000),
      payload: { stripe_customer_id: billing.customerId, value: '1' },
    });
  } catch (err) {
    // A refusal of the event itself (a customer deleted at Stripe, no such meter) will not change
    // on a retry; anything else (Stripe unreachable, 429, 5xx) goes back to the runner's backoff.
    if (isStripeError(err) && err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 && err.statusCode !== 429) {
      services.log.warn({ account: p.account_id, status: err.statusCode, code: err.code }, 'Stripe refused an SMS meter event');
      return;
    }
    throw err;
  }
}
