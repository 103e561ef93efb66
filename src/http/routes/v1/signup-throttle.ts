// Throttling of the public routes that send mail or take a link (decision 0081), with the same
// limiter as sign-in (decision 0014; shared through Redis when configured). Per client address
// (IPv6 per /64), so one source cannot sign up or ask for resets without end; per target email
// (its SHA-256 in the key), so nobody can bomb an inbox from many addresses. Every request counts,
// known email or not, so a refusal says nothing about whether the email has an account. Each is
// taken before any password is hashed or mail written.
import { createHash } from 'node:crypto';
import { addressKey } from '../../../domain/client-address.ts';
import { AppError } from '../../../domain/errors.ts';
import type { BucketPolicy } from '../../../domain/token-bucket.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';

export const SIGNUP_PER_ADDRESS: BucketPolicy = { name: 'signup-address', capacity: 20, refillPerSecond: 1 / 180 };
export const SIGNUP_PER_EMAIL: BucketPolicy = { name: 'signup-email', capacity: 3, refillPerSecond: 1 / 3600 };
export const RESET_PER_ADDRESS: BucketPolicy = { name: 'password-reset-address', capacity: 40, refillPerSecond: 1 / 60 };
export const RESET_PER_EMAIL: BucketPolicy = { name: 'password-reset-email', capacity: 3, refillPerSecond: 1 / 1200 };
/** Following a link (verify, reset): the tokens cannot be guessed; this bounds the work one address causes. */
export const LINK_PER_ADDRESS: BucketPolicy = { name: 'email-link-address', capacity: 60, refillPerSecond: 1 / 5 };
/** A signed-in user asking for another verification mail. */
export const VERIFY_MAIL_PER_USER: BucketPolicy = { name: 'verification-email-user', capacity: 3, refillPerSecond: 1 / 1200 };

const emailKey = (email: string): string => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

export type Throttle = { limiter: RateLimiter; now: number; onRefused: (policy: string) => void };

/** Takes one token from each bucket, in order; throws 429 with Retry-After at the first that is empty. */
export async function admit(th: Throttle, buckets: ReadonlyArray<{ policy: BucketPolicy; key: string }>): Promise<void> {
  for (const { policy, key } of buckets) {
    const r = await th.limiter.take(`${policy.name}:${key}`, policy, th.now);
    if (!r.allowed) {
      th.onRefused(policy.name);
      throw new AppError('rate-limited', `Too many requests; try again in ${r.retryAfterSeconds} s.`, {
        retry_after: r.retryAfterSeconds,
        violated_policies: [policy.name],
      });
    }
  }
}

export const byAddress = (policy: BucketPolicy, ip: string) => ({ policy, key: `ip:${addressKey(ip)}` });
export const byEmail = (policy: BucketPolicy, email: string) => ({ policy, key: `email:${emailKey(email)}` });
export const byUser = (policy: BucketPolicy, userId: string) => ({ policy, key: `user:${userId}` });
