// What the composition root (app.ts) adds for billing through Stripe: its job kinds.
import type { JobRegistry } from '../core/job-registry.ts';
import { SMS_USAGE_JOB } from '../store/billing.ts';
import { BILLING_NOTICE_JOB, billingNoticeJob } from './notices.ts';
import { BILLING_CHECK_JOB, syncCustomer } from './sync.ts';
import { smsUsageJob } from './usage.ts';

export function registerBillingJobs(registry: JobRegistry): JobRegistry {
  return registry
    .set(SMS_USAGE_JOB, smsUsageJob)
    .set(BILLING_NOTICE_JOB, billingNoticeJob)
    .set(BILLING_CHECK_JOB, async (services, p) => {
      // Stripe removed from the configuration since: the plan stays as it was last set.
      if (services.config.stripe !== null) await syncCustomer(services, services.config.stripe, p.customer_id, null);
    });
}
