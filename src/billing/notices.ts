// The owner's billing mails (decision 0085): "a payment failed" and "your trial ends in 3 days".
// Each is a job written in the transaction that finds it due, keyed so that it is written once
// (one per failure, one per trial end); it runs when the mail is due, checks that what it would
// say still holds (a trial converted or cancelled meanwhile says nothing), and hands one mail per
// owner to the mail module (queueMail), in the language of the account's first branch. The trial
// is Stripe's, or the one sign-up gave while no subscription has taken over (decision 0084), whose
// notice sign-up writes (store/billing.ts startSignupTrial).
import type { Services } from '../core/ctx.ts';
import type { Tx } from '../core/db.ts';
import type { TaskResult } from '../core/job-registry.ts';
import {
  enqueueBillingNotice,
  getBilling,
  getSignupTrialEnd,
  type BillingMailKind,
  type BillingNoticePayload,
  type BillingRecord,
} from '../store/billing.ts';
import { listUsers } from '../store/credentials.ts';
import { getAccount, listBranches } from '../store/tenancy.ts';
import { writeThenHooks } from '../write/after-commit.ts';
import { queueMail } from '../mail/queue-mail.ts';
import { isMailLanguage, type MailLanguage } from '../mail/mail-kind.ts';
import { PAYMENT_FAILED_MAIL } from '../mail/kinds/payment-failed.ts';
import { TRIAL_ENDING_MAIL } from '../mail/kinds/trial-ending.ts';
import { stripeRules, trialInForce } from '../domain/billing-state.ts';

type NoticePayload = BillingNoticePayload;

/** The Billing screen, where both mails send the owner. */
export const billingScreenUrl = (services: Services, query = ''): string => `${services.config.publicUrl}/staff/#/settings/billing${query}`;

export async function queueBillingMail(
  tx: Tx,
  services: Services,
  n: { accountId: string; kind: BillingMailKind; key: string; now: number; at?: number; trialEnd?: number },
): Promise<void> {
  if (await enqueueBillingNotice(tx, n)) tx.afterCommit(() => services.jobs.wake());
}

/**
 * The date the notice tells of when it still says something true at `now` (the grace's end, the
 * trial's end), else null: the trial it was written for must be the one in force, Stripe's or
 * sign-up's, not yet over.
 */
export function noticeHolds(
  p: NoticePayload,
  billing: BillingRecord | undefined,
  signupTrialEnd: number | null,
  now: number,
): number | null {
  if (p.kind === 'payment_failed')
    return billing !== undefined && billing.paymentFailedAt !== null && billing.graceUntil !== null ? billing.graceUntil : null;
  const end = trialInForce(billing, signupTrialEnd, now);
  return end !== null && end === (p.trial_end ?? end) ? end : null;
}

const PLAN_NAMES = { pro: 'Pro', business: 'Business' } as const;

export async function billingNoticeJob(services: Services, p: NoticePayload): Promise<TaskResult> {
  const now = services.clock.now();
  await writeThenHooks(services.db, async (tx) => {
    const billing = await getBilling(tx, p.account_id);
    const account = await getAccount(tx, p.account_id);
    if (account === undefined) return;
    const when = noticeHolds(p, billing, await getSignupTrialEnd(tx, account.id), now);
    if (when === null) return;
    const branch = (await listBranches(tx, account.id))[0];
    const wanted = branch?.settings.customer_page.language;
    const lang: MailLanguage = isMailLanguage(wanted) ? wanted : 'en';
    const date = new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: branch?.timezone ?? 'UTC' }).format(when);
    // A sign-up trial is a trial of the pro plan (decision 0081).
    // Only a trial Stripe runs has a card to charge at its end; sign-up's has none yet.
    const card = stripeRules(billing) ? ('yes' as const) : ('no' as const);
    const values = { plan: PLAN_NAMES[billing?.paidPlan ?? 'pro'], date, link: billingScreenUrl(services), card };
    for (const owner of (await listUsers(tx, account.id)).filter((u) => u.role === 'owner')) {
      const order = { to: owner.email, lang, shop: account.name, values, key: `${p.key}:${owner.id}`, accountId: account.id };
      await queueMail({ services, tx }, p.kind === 'payment_failed' ? PAYMENT_FAILED_MAIL : TRIAL_ENDING_MAIL, order);
    }
  });
}
