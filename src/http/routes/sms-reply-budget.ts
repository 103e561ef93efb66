// What the texts back to customers' SMS replies may cost (issue 25 item 3, decision 0046). Every
// text back is a billed message, and every signed inbound text used to get one: 200 HELP texts
// from one number got 200 answers, and two auto-responders would text each other for ever. The
// action decides what the answer says; this decides whether it is sent, per sender's number
// (its keyed digest: no number is ever a bucket key), in the buckets the API's live in (this
// process, or Redis across nodes).
//
// - help: HELP, and anything not understood, is answered once per number per hour;
// - no_order: "no order is waiting" is answered once per number per 30 days, then never again
//   while no open ticket was texted at that number;
// - loop: every inbound text from a number counts; past 10 at once and one per 6 minutes, nothing
//   is answered at all (a person does not text ten times in a few minutes; an auto-responder
//   answering each of our texts does). What the text does (On my way, the snooze, STOP) still
//   happens: only the answer is held back.
// - no_order, for every number together: at most 20 an hour per number texted (the line: readybell
//   sends from the service's one SMS_FROM, so this is what a branch's own number would be), since
//   100 numbers without a ticket got 100 billed answers when the budget was per number only.
import type { SmsAnswer } from '../../actions/sms-reply.ts';
import type { Metrics } from '../../core/metrics.ts';
import type { Mode } from '../../core/tenancy.ts';
import type { BucketPolicy } from '../../domain/token-bucket.ts';
import { countSmsReply } from '../../metrics.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';

export const SMS_HELP_POLICY: BucketPolicy = { name: 'sms-help', capacity: 1, refillPerSecond: 1 / 3600 };
export const SMS_NO_ORDER_POLICY: BucketPolicy = { name: 'sms-no-order', capacity: 1, refillPerSecond: 1 / (30 * 86_400) };
export const SMS_INBOUND_POLICY: BucketPolicy = { name: 'sms-inbound', capacity: 10, refillPerSecond: 1 / 360 };
/** "No order is waiting" answers to all unknown numbers together, per line: 20, then 20 an hour. */
export const SMS_NO_ORDER_LINE_POLICY: BucketPolicy = { name: 'sms-no-order-line', capacity: 20, refillPerSecond: 20 / 3600 };

const CAP: Record<SmsAnswer, BucketPolicy | null> = { help: SMS_HELP_POLICY, no_order: SMS_NO_ORDER_POLICY, confirmation: null };

export type SmsReplyBudget = {
  /**
   * Counts an inbound text from the number (a provider's second delivery of one is not counted)
   * and says whether its answer, if any, may be sent; counts the answer in the metrics. `line`:
   * the number the text was sent to (ours), whose "no order" answers share one hourly budget.
   */
  allow(mode: Mode, digest: string, answer: SmsAnswer | null, now: number, line: string): Promise<boolean>;
};

export function smsReplyBudget(limiter: RateLimiter, metrics: Metrics | undefined): SmsReplyBudget {
  return {
    async allow(mode, digest, answer, now, line) {
      const key = `${mode}:${digest}`;
      const inbound = await limiter.take(key, SMS_INBOUND_POLICY, now);
      if (answer === null) return false;
      if (!inbound.allowed) {
        countSmsReply(metrics, answer, 'loop');
        return false;
      }
      const cap = CAP[answer];
      // The number's own bucket first: a number already answered does not spend the line's.
      if (
        (cap !== null && !(await limiter.take(key, cap, now)).allowed) ||
        (answer === 'no_order' && !(await limiter.take(`${mode}:line:${line}`, SMS_NO_ORDER_LINE_POLICY, now)).allowed)
      ) {
        countSmsReply(metrics, answer, 'capped');
        return false;
      }
      countSmsReply(metrics, answer, 'sent');
      return true;
    },
  };
}
