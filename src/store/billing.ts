// Billing through Stripe (migration 0021, decisions 0084 and 0085): each account's Stripe customer
// and what was last read back about its subscription, the Stripe events already acted on, and the
// SMS live tickets sent (each reported to Stripe once by the job enqueued with it).
import type { Queryable, Tx } from '../core/db.ts';
import type { BillingPeriod, PaidPlan } from '../core/config.ts';
import { defineJobKind } from '../core/job-registry.ts';
import { TRIAL_NOTICE_MS } from '../domain/billing-state.ts';
import { one } from './db.ts';
import { enqueueJob, newJob } from './outbox.ts';

export type BillingRecord = {
  accountId: string;
  customerId: string;
  subscriptionId: string | null;
  /** Stripe's subscription status as last read back (active, trialing, past_due, canceled, …); null: none yet. */
  status: string | null;
  paidPlan: PaidPlan | null;
  period: BillingPeriod | null;
  trialEnd: number | null;
  currentPeriodEnd: number | null;
  cancelAtPeriodEnd: boolean;
  paymentFailedAt: number | null;
  graceUntil: number | null;
  updatedAt: number;
};

const COLUMNS =
  'account_id, customer_id, subscription_id, status, paid_plan, period, trial_end, current_period_end, cancel_at_period_end, ' +
  'payment_failed_at, grace_until, updated_at';

type Raw = Record<string, unknown>;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const toRecord = (r: Raw): BillingRecord => ({
  accountId: String(r.account_id),
  customerId: String(r.customer_id),
  subscriptionId: str(r.subscription_id),
  status: str(r.status),
  paidPlan: r.paid_plan === 'pro' || r.paid_plan === 'business' ? r.paid_plan : null,
  period: r.period === 'monthly' || r.period === 'yearly' ? r.period : null,
  trialEnd: num(r.trial_end),
  currentPeriodEnd: num(r.current_period_end),
  cancelAtPeriodEnd: Number(r.cancel_at_period_end) === 1,
  paymentFailedAt: num(r.payment_failed_at),
  graceUntil: num(r.grace_until),
  updatedAt: Number(r.updated_at),
});

export async function getBilling(q: Queryable, accountId: string): Promise<BillingRecord | undefined> {
  const r = await one<Raw>(q, `SELECT ${COLUMNS} FROM billing_accounts WHERE account_id = $1`, [accountId]);
  return r && toRecord(r);
}

export async function getBillingByCustomer(q: Queryable, customerId: string): Promise<BillingRecord | undefined> {
  const r = await one<Raw>(q, `SELECT ${COLUMNS} FROM billing_accounts WHERE customer_id = $1`, [customerId]);
  return r && toRecord(r);
}

/** Every account's billing row (the CLI's `accounts list`). */
export async function listBilling(q: Queryable): Promise<BillingRecord[]> {
  return (await q.query<Raw>(`SELECT ${COLUMNS} FROM billing_accounts ORDER BY account_id`)).map(toRecord);
}

/** The account's Stripe customer, unless it has one already (the first one stays: it holds the subscription). */
export async function saveCustomer(tx: Tx, accountId: string, customerId: string, now: number): Promise<void> {
  await tx.run(
    `INSERT INTO billing_accounts (account_id, customer_id, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (account_id) DO NOTHING`,
    [accountId, customerId, now],
  );
}

/** What was read back from Stripe, and the grace it implies, over the account's row. */
export async function saveBillingState(tx: Tx, b: BillingRecord): Promise<void> {
  await tx.run(
    `UPDATE billing_accounts SET subscription_id = $2, status = $3, paid_plan = $4, period = $5, trial_end = $6,
       current_period_end = $7, cancel_at_period_end = $8, payment_failed_at = $9, grace_until = $10, updated_at = $11
     WHERE account_id = $1`,
    [
      b.accountId,
      b.subscriptionId,
      b.status,
      b.paidPlan,
      b.period,
      b.trialEnd,
      b.currentPeriodEnd,
      b.cancelAtPeriodEnd ? 1 : 0,
      b.paymentFailedAt,
      b.graceUntil,
      b.updatedAt,
    ],
  );
}

/** Records a Stripe event id; false when it was recorded before (the event was acted on already). */
export async function recordStripeEvent(tx: Tx, id: string, type: string, now: number): Promise<boolean> {
  return (
    (await tx.run('INSERT INTO stripe_events (id, type, received_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [id, type, now])) ===
    1
  );
}

/** The job that reports one SMS to Stripe as a meter event (billing/usage.ts runs it). */
export type SmsUsagePayload = { ring_id: string; account_id: string; sent_at: number };
export const SMS_USAGE_JOB = defineJobKind<SmsUsagePayload>('billing_sms_usage', 'webhook');

/**
 * Counts a live SMS, once per ring whichever records it first (the sender or a delivery receipt),
 * with the job that reports it to Stripe, in the same transaction: a crash loses neither.
 */
export async function recordSmsUsage(tx: Tx, ringId: string, branchId: string, at: number): Promise<boolean> {
  const account = await one<{ account_id: string }>(tx, 'SELECT account_id FROM branches WHERE id = $1', [branchId]);
  if (account === undefined) return false;
  const added =
    (await tx.run('INSERT INTO sms_usage (ring_id, account_id, sent_at) VALUES ($1, $2, $3) ON CONFLICT (ring_id) DO NOTHING', [
      ringId,
      account.account_id,
      at,
    ])) === 1;
  if (added) {
    const payload: SmsUsagePayload = { ring_id: ringId, account_id: account.account_id, sent_at: at };
    await enqueueJob(tx, newJob(SMS_USAGE_JOB, `sms_usage:${ringId}`, payload, at, at, { accountId: account.account_id }));
  }
  return added;
}

/** The account's SMS sent from `since` on. */
export async function countSmsUsage(q: Queryable, accountId: string, since: number): Promise<number> {
  const r = await one<{ n: number }>(q, 'SELECT COUNT(*) AS n FROM sms_usage WHERE account_id = $1 AND sent_at >= $2', [accountId, since]);
  return Number(r?.n ?? 0);
}

/** The end of the trial the account got at sign-up (migration 0019), null when it got none. */
export async function getSignupTrialEnd(q: Queryable, accountId: string): Promise<number | null> {
  const r = await one<{ trial_ends_at: number | null }>(q, 'SELECT trial_ends_at FROM accounts WHERE id = $1', [accountId]);
  return r?.trial_ends_at == null ? null : Number(r.trial_ends_at);
}

/** Every account's sign-up trial end (the CLI's `accounts list`). */
export async function listSignupTrialEnds(q: Queryable): Promise<Map<string, number>> {
  const rows = await q.query<{ id: string; trial_ends_at: number }>(
    'SELECT id, trial_ends_at FROM accounts WHERE trial_ends_at IS NOT NULL',
  );
  return new Map(rows.map((r) => [r.id, Number(r.trial_ends_at)]));
}

export type BillingMailKind = 'payment_failed' | 'trial_ending';
export type BillingNoticePayload = { account_id: string; kind: BillingMailKind; key: string; trial_end?: number };

/**
 * The owner's billing mails (billing/notices.ts runs them). Defined here, below the actions, so
 * that sign-up can write the sign-up trial's notice in its own transaction.
 */
export const BILLING_NOTICE_JOB = defineJobKind<BillingNoticePayload>('billing_notice', 'webhook');

/** A sign-up trial's end (decision 0084): the account falls back to free unless a subscription took over. */
export type SignupTrialEndPayload = { account_id: string; trial_end: number };
export const SIGNUP_TRIAL_END_JOB = defineJobKind<SignupTrialEndPayload>('signup_trial_end', 'webhook');

/** Writes a billing mail's job, once per key; true when it was written now. */
export async function enqueueBillingNotice(
  tx: Tx,
  n: { accountId: string; kind: BillingMailKind; key: string; now: number; at?: number; trialEnd?: number },
): Promise<boolean> {
  const payload: BillingNoticePayload = {
    account_id: n.accountId,
    kind: n.kind,
    key: n.key,
    ...(n.trialEnd === undefined ? {} : { trial_end: n.trialEnd }),
  };
  return enqueueJob(tx, newJob(BILLING_NOTICE_JOB, `billing_notice:${n.key}`, payload, n.at ?? n.now, n.now, { accountId: n.accountId }));
}

/** The "trial ends in 3 days" mail's job: keyed by the account and the trial's end, so a trial is told of once. */
export const trialNotice = (accountId: string, trialEnd: number, now: number) => ({
  accountId,
  kind: 'trial_ending' as const,
  key: `trial_ending:${accountId}:${trialEnd}`,
  now,
  at: Math.max(now, trialEnd - TRIAL_NOTICE_MS),
  trialEnd,
});

/**
 * Sets the account's sign-up trial (decision 0081) and writes, in the same transaction, the jobs
 * due at its end (decision 0084): its "3 days left" mail and its fall back to free.
 */
export async function startSignupTrial(tx: Tx, accountId: string, trialEnd: number, now: number): Promise<void> {
  await tx.run('UPDATE accounts SET trial_ends_at = $2 WHERE id = $1', [accountId, trialEnd]);
  await enqueueBillingNotice(tx, trialNotice(accountId, trialEnd, now));
  const payload: SignupTrialEndPayload = { account_id: accountId, trial_end: trialEnd };
  await enqueueJob(tx, newJob(SIGNUP_TRIAL_END_JOB, `signup_trial_end:${accountId}:${trialEnd}`, payload, trialEnd, now, { accountId }));
}

/** Ends the sign-up trial now (the operator set the plan by hand): its end's job then leaves the plan alone. */
export async function endSignupTrial(tx: Tx, accountId: string): Promise<void> {
  await tx.run('UPDATE accounts SET trial_ends_at = NULL WHERE id = $1', [accountId]);
}
