// The end of a trial sign-up gave (decisions 0081, 0084): a job written by sign-up in the same
// transaction runs at `trial_ends_at` and puts the account back on the free plan (its data kept)
// through setAccountPlan, the path Stripe's events take, so live keys answer 403 plan-required on
// the next request on every node. Nothing happens when the trial is no longer the one sign-up gave
// (the operator changed or ended it) or when a subscription read back from Stripe decides the plan:
// Stripe's state rules then, and a trial carried over at Checkout ends at Stripe.
import type { Services } from '../core/ctx.ts';
import type { TaskResult } from '../core/job-registry.ts';
import { stripeRules } from '../domain/billing-state.ts';
import { getBilling, getSignupTrialEnd, type SignupTrialEndPayload } from '../store/billing.ts';
import { getAccount, setAccountPlan } from '../store/tenancy.ts';
import { writeThenHooks } from '../write/after-commit.ts';

export async function signupTrialEndJob(services: Services, p: SignupTrialEndPayload): Promise<TaskResult> {
  await writeThenHooks(services.db, async (tx) => {
    const account = await getAccount(tx, p.account_id);
    if (account === undefined || account.plan === 'free') return;
    if ((await getSignupTrialEnd(tx, account.id)) !== p.trial_end) return;
    if (stripeRules(await getBilling(tx, account.id))) return;
    await setAccountPlan(tx, account.id, 'free');
    services.log.info({ account: account.id, plan: 'free' }, 'sign-up trial ended');
  });
}
