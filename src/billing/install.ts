// What the composition root (app.ts) adds for billing: its job kinds (the sign-up trial's end too,
// which runs with or without Stripe).
import type { JobRegistry } from '../core/job-registry.ts';
import { BILLING_NOTICE_JOB, SIGNUP_TRIAL_END_JOB, SMS_USAGE_JOB } from '../store/billing.ts';
import { billingNoticeJob } from './notices.ts';
import { signupTrialEndJob } from './signup-trial.ts';
import { BILLING_CHECK_JOB, syncCustomer } from './sync.ts';
import { smsUsageJob } from './usage.ts';

export function registerBillingJobs(registry: JobRegistry): JobRegistry {
  return registry
    .set(SMS_USAGE_JOB, smsUsageJob)
    .set(BILLING_NOTICE_JOB, billingNoticeJob)
    .set(SIGNUP_TRIAL_END_JOB, signupTrialEndJob)
    .set(BILLING_CHECK_JOB, async (services, p) => {
      // Stripe removed from the configuration since: the plan stays as it was last set.
      if (services.config.stripe !== null) await syncCustomer(services, services.config.stripe, p.customer_id, null);
    });
}
