// What happens outside the store when an owner deletes the account (decision 0083), once per
// deletion, as a durable job: the deletion's transaction enqueued ACCOUNT_DELETION_REQUESTED.
// The Stripe subscription's cancellation is billing's (src/billing, a layer above this one): the
// composition root hands its canceller to registerAccountJobs. And the erasure of accounts whose
// 30 days have passed, which the hourly maintenance runs.
import type { Services } from '../core/ctx.ts';
import type { JobRegistry } from '../core/job-registry.ts';
import { ACCOUNT_DELETION_REQUESTED } from '../actions/account-deletion.ts';
import { accountsDueForErasure, eraseAccount } from '../store/account-deletion.ts';

/** Cancels the account's subscription at its payment provider; throwing retries the job with the runner's backoff. */
export type CancelSubscription = (services: Services, accountId: string) => Promise<void>;

/** Without billing there is nothing to cancel: plans are then the operator's. */
const noBilling: CancelSubscription = async (services, accountId) => {
  services.log.info({ account: accountId }, 'account deletion requested: no billing to cancel');
};

/** `cancel`: billing's `cancelSubscriptionFor` (src/billing/account-billing.ts) where billing is built in. */
export function registerAccountJobs(registry: JobRegistry, cancel: CancelSubscription = noBilling): JobRegistry {
  return registry.set(ACCOUNT_DELETION_REQUESTED, (services, payload) => cancel(services, payload.accountId));
}

/** Erases the accounts whose 30 days have passed at `now`; returns how many. */
export async function eraseDeletedAccounts(services: Services, now: number): Promise<number> {
  let erased = 0;
  for (const id of await accountsDueForErasure(services.db, now)) {
    if (await eraseAccount(services.db, id, now)) {
      erased++;
      services.log.info({ account: id }, 'account erased, 30 days after its deletion');
    }
  }
  return erased;
}
