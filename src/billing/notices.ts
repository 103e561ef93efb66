// The owner's billing mails (decision 0085): "a payment failed" and "your trial ends in 3 days".
// Each is a job written in the transaction that finds it due, keyed so that it is written once
// (one per failure, one per trial end); it runs when the mail is due, checks that what it would
// say still holds (a trial converted or cancelled meanwhile says nothing), and hands the mail to
// the mail module.
import type { Services } from '../core/ctx.ts';
import type { Tx } from '../core/db.ts';
import { defineJobKind } from '../core/job-registry.ts';
import type { TaskResult } from '../core/job-registry.ts';
import { getBilling, type BillingRecord } from '../store/billing.ts';
import { enqueueJob, newJob } from '../store/outbox.ts';
import { writeThenHooks } from '../write/after-commit.ts';

export type BillingMailKind = 'payment_failed' | 'trial_ending';
type NoticePayload = { account_id: string; kind: BillingMailKind; trial_end?: number };

export const BILLING_NOTICE_JOB = defineJobKind<NoticePayload>('billing_notice', 'webhook');

export async function queueBillingMail(
  tx: Tx,
  services: Services,
  n: { accountId: string; kind: BillingMailKind; key: string; now: number; at?: number; trialEnd?: number },
): Promise<void> {
  const payload: NoticePayload = { account_id: n.accountId, kind: n.kind, ...(n.trialEnd === undefined ? {} : { trial_end: n.trialEnd }) };
  if (
    await enqueueJob(tx, newJob(BILLING_NOTICE_JOB, `billing_notice:${n.key}`, payload, n.at ?? n.now, n.now, { accountId: n.accountId }))
  )
    tx.afterCommit(() => services.jobs.wake());
}

/** Whether the notice still says something true when it is due. */
export function noticeHolds(p: NoticePayload, billing: BillingRecord | undefined, now: number): boolean {
  if (billing === undefined) return false;
  if (p.kind === 'payment_failed') return billing.paymentFailedAt !== null;
  return (
    billing.status === 'trialing' &&
    billing.trialEnd !== null &&
    billing.trialEnd === (p.trial_end ?? billing.trialEnd) &&
    now < billing.trialEnd
  );
}

export async function billingNoticeJob(services: Services, p: NoticePayload): Promise<TaskResult> {
  const now = services.clock.now();
  await writeThenHooks(services.db, async (tx) => {
    const billing = await getBilling(tx, p.account_id);
    if (!noticeHolds(p, billing, now)) return;
    services.log.info({ account: p.account_id, notice: p.kind }, 'billing notice due');
  });
}
