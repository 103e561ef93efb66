// Sign-in throttling (decision 0014, after OWASP's Authentication Cheat Sheet). Guessing is slowed
// per (email, address) and per address; the per-email counter OWASP asks for is only a brake, so
// that wrong passwords sent from elsewhere can never keep the owner out:
//
// - every attempt from an address takes from its bucket, before any password is hashed, which
//   also caps the hashing work one address can cause;
// - failures of one email from one address: six, then one a minute (a person mistyping);
// - failures of one email from everywhere: fifty, then one every ten minutes. When that brake is
//   empty, an address is checked only while its own allowance for this email lasts: three
//   failures, then one an hour (counted from its failures before the brake emptied too). The
//   owner at their own counter therefore still gets in, and their first typos there are not
//   punished for the attacker's (issue 25 item 10); an attacker's address has spent its
//   allowance on its own failures, and a guesser gets the brake's trickle plus three tries per
//   fresh address.
//
// Successful sign-ins count only against the address bucket. Email addresses appear in bucket
// keys only as hashes; IPv6 clients are counted per /64, the block one subscriber usually holds.
import { createHash } from 'node:crypto';
import { addressKey } from '../../../domain/client-address.ts';
import { AppError } from '../../../domain/errors.ts';
import type { BucketPolicy } from '../../../domain/token-bucket.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';

export const LOGIN_PER_ADDRESS: BucketPolicy = { name: 'login-address', capacity: 30, refillPerSecond: 1 / 10 };
export const LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS: BucketPolicy = { name: 'login-account-address', capacity: 6, refillPerSecond: 1 / 60 };
export const LOGIN_FAILURES_PER_ACCOUNT: BucketPolicy = { name: 'login-account', capacity: 50, refillPerSecond: 1 / 600 };
/** What an address may still fail on an email while the brake is empty: 3, then 1 an hour. */
export const LOGIN_ADDRESS_ALLOWANCE: BucketPolicy = { name: 'login-address-allowance', capacity: 3, refillPerSecond: 1 / 3600 };

const emailKey = (email: string): string => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

function refuse(policy: BucketPolicy, retryAfterSeconds: number): AppError {
  return new AppError('rate-limited', `Too many sign-in attempts; try again in ${retryAfterSeconds} s.`, {
    retry_after: retryAfterSeconds,
    violated_policies: [policy.name],
  });
}

export type SignInAttempt = { failed(): Promise<void> };

/** Throws 429 when this attempt may not be checked; otherwise report a wrong password to `failed`. */
/** `onRefused` hears the name of each policy that refuses an attempt (the refusal metric). */
export async function admitSignIn(
  limiter: RateLimiter,
  nowMs: number,
  ip: string,
  email: string,
  onRefused: (policy: string) => void = () => {},
): Promise<SignInAttempt> {
  const refused = (policy: BucketPolicy, retryAfterSeconds: number): AppError => {
    onRefused(policy.name);
    return refuse(policy, retryAfterSeconds);
  };
  const address = addressKey(ip);
  const account = `email:${emailKey(email)}`;
  const pair = `${account}:ip:${address}`;
  const perAddress = await limiter.take(`ip:${address}`, LOGIN_PER_ADDRESS, nowMs);
  if (!perAddress.allowed) throw refused(LOGIN_PER_ADDRESS, perAddress.retryAfterSeconds);
  const [here, brake] = await Promise.all([
    limiter.peek(pair, LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS, nowMs),
    limiter.peek(account, LOGIN_FAILURES_PER_ACCOUNT, nowMs),
  ]);
  if (!here.allowed) throw refused(LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS, here.retryAfterSeconds);
  if (!brake.allowed) {
    const allowance = await limiter.peek(pair, LOGIN_ADDRESS_ALLOWANCE, nowMs);
    if (!allowance.allowed) throw refused(LOGIN_FAILURES_PER_ACCOUNT, Math.min(brake.retryAfterSeconds, allowance.retryAfterSeconds));
  }
  return {
    async failed() {
      await Promise.all([
        limiter.take(pair, LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS, nowMs),
        limiter.take(account, LOGIN_FAILURES_PER_ACCOUNT, nowMs),
        limiter.take(pair, LOGIN_ADDRESS_ALLOWANCE, nowMs),
      ]);
    },
  };
}
