// Throttles on the requests that send mail to an address someone typed (invitations, email
// changes; decision 0082), so that nobody can bomb an inbox through readybell: per sending address
// and per recipient (or per invitation, for a resend). And one on the public links that use a
// token, per address: a token has 256 bits, so this bounds load, not guessing. The email appears
// in a bucket's key only as a hash.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sessionOf } from '../../plugins/session.ts';
import { addressKey } from '../../../domain/client-address.ts';
import { AppError } from '../../../domain/errors.ts';
import type { BucketPolicy } from '../../../domain/token-bucket.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';

/** Mails one address may cause: 20, then one every 3 minutes. */
export const MAIL_PER_ADDRESS: BucketPolicy = { name: 'mail-address', capacity: 20, refillPerSecond: 1 / 180 };
/** Mails to one recipient (or of one invitation): 3, then one every 20 minutes. */
export const MAIL_PER_RECIPIENT: BucketPolicy = { name: 'mail-recipient', capacity: 3, refillPerSecond: 1 / 1200 };
/**
 * Uses of emailed links from one address: 60, then one every 10 seconds. A shop's staff share an
 * address (as for sign-in's 30), and each use may hash a password.
 */
export const LINKS_PER_ADDRESS: BucketPolicy = { name: 'account-link-address', capacity: 60, refillPerSecond: 1 / 10 };

const hashed = (s: string): string => createHash('sha256').update(s.trim().toLowerCase()).digest('base64url');

async function take(limiter: RateLimiter, key: string, policy: BucketPolicy, now: number): Promise<void> {
  const r = await limiter.take(key, policy, now);
  if (!r.allowed)
    throw new AppError('rate-limited', `Too many emails asked for; try again in ${r.retryAfterSeconds} s.`, {
      retry_after: r.retryAfterSeconds,
      violated_policies: [policy.name],
    });
}

/**
 * Throws 429 when this address, or this recipient (an email, or `invitation:<id>`), has had enough
 * mail. Only staff sessions are charged: an API key's request is refused by the verb (403) and
 * sends nothing.
 */
export async function admitMail(limiter: RateLimiter, req: FastifyRequest, now: number, recipient: string): Promise<void> {
  if (sessionOf(req) === null) return;
  await take(limiter, `mail:ip:${addressKey(req.ip)}`, MAIL_PER_ADDRESS, now);
  await take(limiter, `mail:to:${hashed(recipient)}`, MAIL_PER_RECIPIENT, now);
}

export async function admitLinkUse(limiter: RateLimiter, now: number, ip: string): Promise<void> {
  await take(limiter, `link:ip:${addressKey(ip)}`, LINKS_PER_ADDRESS, now);
}
