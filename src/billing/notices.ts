// The owner's billing mails (decision 0085): "a payment failed" and "your trial ends in 3 days".
// Each is a job written in the transaction that finds it due, keyed so that it is written once
// (one per failure, one per trial end); it runs when the mail is due, checks that what it would
// say still holds (a trial converted or cancelled meanwhile says nothing), and hands one mail per
// owner to the mail module (queueMail), in the language of the account's first branch.
import type { Services } from '../core/ctx.ts';
import type { Tx } from '../core/db.ts';
import { defineJobKind } from '../core/job-registry.ts';
import type { TaskResult } from '../core/job-registry.ts';
import { getBilling, type BillingRecord } from '../store/billing.ts';
import { listUsers } from '../store/credentials.ts';
import { enqueueJob, newJob } from '../store/outbox.ts';
import { getAccount, listBranches } from '../store/tenancy.ts';
import { writeThenHooks } from '../write/after-commit.ts';
import { queueMail } from '../mail/queue-mail.ts';
import { isMailLanguage, type MailLanguage } from '../mail/mail-kind.ts';
import { PAYMENT_FAILED_MAIL } from '../mail/kinds/payment-failed.ts';
import { TRIAL_ENDING_MAIL } from '../mail/kinds/trial-ending.ts';

export type BillingMailKind = 'payment_failed' | 'trial_ending';
type NoticePayload = { account_id: string; kind: BillingMailKind; key: string; trial_end?: number };

export const BILLING_NOTICE_JOB = defineJobKind<NoticePayload>('billing_notice', 'webhook');

/** The Billing screen, where both mails send the owner. */
export const billingScreenUrl = (services: Services, query = ''): string => `${services.config.publicUrl}/staff/#/settings/billing${query}`;

export async function queueBillingMail(
  tx: Tx,
  services: Services,
  n: { accountId: string; kind: BillingMailKind; key: string; now: number; at?: number; trialEnd?: number },
): Promise<void> {
  const payload: NoticePayload = {
    account_id: n.accountId,
    kind: n.kind,
    key: n.key,
    ...(n.trialEnd === undefined ? {} : { trial_end: n.trialEnd }),
  };
  if (
    await enqueueJob(tx, newJob(BILLING_NOTICE_JOB, `billing_notice:${n.key}`, payload, n.at ?? n.now, n.now, { accountId: n.accountId }))
  )
    tx.afterCommit(() => services.jobs.wake());
}

/** Whether the notice still says something true when it is due. */
export function noticeHolds(p: NoticePayload, billing: BillingRecord | undefined, now: number): boolean {
  if (billing === undefined) return false;
  if (p.kind === 'payment_failed') return billing.paymentFailedAt !== null && billing.graceUntil !== null;
  return (
    billing.status === 'trialing' &&
    billing.trialEnd !== null &&
    billing.trialEnd === (p.trial_end ?? billing.trialEnd) &&
    now < billing.trialEnd
  );
}

const PLAN_NAMES = { pro: 'Pro', business: 'Business' } as const;

export async function billingNoticeJob(services: Services, p: NoticePayload): Promise<TaskResult> {
  const now = services.clock.now();
  await writeThenHooks(services.db, async (tx) => {
    const billing = await getBilling(tx, p.account_id);
    const account = await getAccount(tx, p.account_id);
    if (account === undefined || !noticeHolds(p, billing, now)) return;
    const branch = (await listBranches(tx, account.id))[0];
    const wanted = branch?.settings.customer_page.language;
    const lang: MailLanguage = isMailLanguage(wanted) ? wanted : 'en';
    const date = new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: branch?.timezone ?? 'UTC' }).format(
      p.kind === 'payment_failed' ? billing!.graceUntil! : billing!.trialEnd!,
    );
    const values = { plan: PLAN_NAMES[billing!.paidPlan ?? 'pro'], date, link: billingScreenUrl(services) };
    for (const owner of (await listUsers(tx, account.id)).filter((u) => u.role === 'owner')) {
      const order = { to: owner.email, lang, shop: account.name, values, key: `${p.key}:${owner.id}`, accountId: account.id };
      await queueMail({ services, tx }, p.kind === 'payment_failed' ? PAYMENT_FAILED_MAIL : TRIAL_ENDING_MAIL, order);
    }
  });
}
