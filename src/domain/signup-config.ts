// Sign-up's part of the configuration (SIGNUP, TRIAL_DAYS; decision 0081), checked at start.
import type { SignupConfig } from '../core/config.ts';

type Get = (name: string) => string | undefined;

export const SIGNUP_MODES = ['open', 'first-owner', 'off'] as const;

/**
 * Unset, SIGNUP is `first-owner` on the embedded store (a self-hosted shop: the screen is offered
 * once, to create its first owner) and `off` on PostgreSQL (a hosted readybell opens sign-up on
 * purpose); `serve --demo` (npm start) turns an unset SIGNUP into `open`.
 */
export function loadSignupConfig(get: Get, problems: string[], hosted: boolean, smtpUrl: string | null): SignupConfig {
  const raw = get('SIGNUP')?.toLowerCase();
  let mode: SignupConfig['mode'] = hosted ? 'off' : 'first-owner';
  if (raw !== undefined) {
    if ((SIGNUP_MODES as readonly string[]).includes(raw)) mode = raw as SignupConfig['mode'];
    else problems.push(`SIGNUP must be one of ${SIGNUP_MODES.join(', ')} (got "${raw}")`);
  }
  // Strangers' verification links must not go to the operator's log.
  if (raw === 'open' && hosted && smtpUrl === null)
    problems.push('SIGNUP=open on PostgreSQL needs SMTP_URL: a hosted readybell sends its sign-up links by email, not to its log');
  let trialDays = 14;
  const days = get('TRIAL_DAYS');
  if (days !== undefined) {
    const n = Number(days);
    if (!Number.isInteger(n) || n < 0 || n > 365)
      problems.push(`TRIAL_DAYS must be a whole number of days from 0 (no trial: the free plan) to 365 (got "${days}")`);
    else trialDays = n;
  }
  return { mode, defaulted: raw === undefined, trialDays };
}
