// Rate limits of the customer page and the board (PRODUCT.md §8: their own, generous buckets;
// decision 0044). A link that was found counts only against its own token's bucket, so one busy
// café behind one public address is never throttled as a whole, and a guesser sharing that
// address (the shop's Wi-Fi, a carrier's NAT) can never make a real link answer 429. A link that
// matches nothing (malformed, or well-formed but unknown) counts against the address it came from
// (IPv6 per /64), and once the address has used up its unknown links they answer 429 instead of
// 404: guessing costs the guesser. That a hit still opens for a throttled address gives a guesser
// nothing: the secret part of a link has 130 random bits (ticket-token.ts), about 190 for a board.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BucketPolicy } from '../../domain/token-bucket.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import type { Clock } from '../../core/clock.ts';
import { addressKey } from '../../domain/client-address.ts';
import { countRefusal } from '../../metrics.ts';
import type { Metrics } from '../../core/metrics.ts';
import { AppError } from '../../domain/errors.ts';

/** A page reconnecting, confirming rings and posting its buttons stays far below this. */
export const LINK_POLICY: BucketPolicy = { name: 'link', capacity: 120, refillPerSecond: 1 };
export const UNKNOWN_LINK_POLICY: BucketPolicy = { name: 'unknown-link', capacity: 30, refillPerSecond: 0.5 };
/**
 * A link's "Add to wallet" taps, on top of the link's own bucket: each one signs a pass or a save
 * link (and may call Google), and a customer taps it once or twice, not a hundred times.
 */
export const WALLET_ADD_POLICY: BucketPolicy = { name: 'wallet-add', capacity: 10, refillPerSecond: 1 / 60 };

export type LinkLimiter = {
  /**
   * After a lookup that found the link: its own bucket (LINK_POLICY unless another is named, for a
   * costlier request of the link). False (with Retry-After set) when used up.
   */
  found(reply: FastifyReply, linkKey: string, policy?: BucketPolicy): Promise<boolean>;
  /**
   * After a lookup that found nothing the link could show (or none, for a malformed token): the
   * address's bucket. False (with Retry-After set) when the address has used up its unknown links.
   */
  unknown(req: FastifyRequest, reply: FastifyReply): Promise<boolean>;
};

export function linkLimiter(limiter: RateLimiter, clock: Clock, metrics?: Metrics): LinkLimiter {
  const taken = async (reply: FastifyReply, key: string, policy: BucketPolicy): Promise<boolean> => {
    const answer = await limiter.take(key, policy, clock.now());
    if (answer.allowed) return true;
    countRefusal(metrics, policy.name);
    reply.header('retry-after', String(answer.retryAfterSeconds));
    return false;
  };
  return {
    found: (reply, linkKey, policy = LINK_POLICY) => taken(reply, linkKey, policy),
    unknown: (req, reply) => taken(reply, `ip:${addressKey(req.ip)}`, UNKNOWN_LINK_POLICY),
  };
}

/** The 429 problem of a link whose bucket is used up (found or unknown answered false, so Retry-After is set). */
export function linkRefused(reply: FastifyReply, detail = 'Too many requests for this link; retry shortly.'): AppError {
  return new AppError('rate-limited', detail, { retry_after: Number(reply.getHeader('retry-after') ?? 1) });
}
