// The handler of a close's wallet job (actions/wallet-close.ts): every issuer updates the ticket's
// passes to say how it closed; Apple's then erases the device registrations, in the job's second run.
import type { FeatureModule } from '../../core/module.ts';
import type { JobRegistry } from '../../core/job-registry.ts';
import { WALLET_CLOSE_JOB } from '../../actions/wallet-close.ts';
import { getTicket } from '../../store/tickets.ts';
import { getBranch } from '../../store/tenancy.ts';
import type { WalletIssuer } from './issuer.ts';

/** Bound on one issuer's update of a close (its APNs requests have their own timeouts inside it). */
const CLOSE_UPDATE_MS = 30_000;
/**
 * How long after telling the devices of a close their registrations stay: a device asks which
 * passes changed with its registration, seconds after the push when it is online (decision 0071).
 */
export const WALLET_CLOSE_GRACE_MS = 120_000;

export function registerWalletJobs(registry: JobRegistry, issuers: readonly WalletIssuer[]): JobRegistry {
  return registry.set(WALLET_CLOSE_JOB, async (services, p) => {
    const [ticket, branch] = await Promise.all([
      getTicket(services.db, p.branch_id, p.mode, p.ticket_id),
      getBranch(services.db, p.branch_id),
    ]);
    if (ticket === undefined || branch === undefined) return;
    const change = { ticket, branch, reason: p.reason, ringId: null, livemode: p.mode === 'live' };
    // Each issuer on its own: one that fails must not bring the job back before the grace below,
    // when Apple's next run would erase registrations a device had not yet used to fetch the close.
    const settled = await Promise.allSettled(issuers.map((issuer) => issuer.update(change, AbortSignal.timeout(CLOSE_UPDATE_MS))));
    const failed = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    // An issuer with more to do (Apple: erase the registrations once the devices had their chance)
    // comes back after the grace; an issuer that failed is asked again then too.
    if (settled.some((r) => r.status === 'fulfilled' && r.value?.pending === true)) {
      for (const err of failed)
        services.log.warn({ err: err.message, ticket_id: p.ticket_id }, 'wallet close update failed; asked again after the grace');
      return { retryAt: services.clock.now() + WALLET_CLOSE_GRACE_MS };
    }
    if (failed.length > 0) throw failed[0];
  });
}

/**
 * The wallet channel as the app installs it (decision 0076): the close job, for the configured
 * issuers. Each issuer's routes and health are its own module's (Apple's, Google's).
 */
export function walletModule(issuers: readonly WalletIssuer[]): FeatureModule<never> {
  return {
    name: 'wallet',
    kind: 'channel',
    config: [],
    configured: () => issuers.length > 0,
    jobs: (registry) => void registerWalletJobs(registry, issuers),
  };
}
