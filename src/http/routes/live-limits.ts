// Rate limits of the customer page and the board (PRODUCT.md §8: their own, generous buckets).
// Counted per link token, so one busy café behind one public IP is never throttled as a whole;
// every link that turns out unknown (malformed, or well-formed but matching nothing) is counted
// per address as well, which is what slows down guessing. Whether a well-formed token is unknown
// is only known after the lookup, so the address's bucket is checked before it and charged after
// it: an address that has used up its unknown links gets 429 for every link, real ones included,
// or a hit among its guesses would still answer at full speed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BucketPolicy } from '../../domain/token-bucket.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import type { Clock } from '../../core/clock.ts';
import { countRefusal } from '../../metrics.ts';
import type { Metrics } from '../../core/metrics.ts';

/** A page reconnecting, confirming rings and posting its buttons stays far below this. */
export const LINK_POLICY: BucketPolicy = { name: 'link', capacity: 120, refillPerSecond: 1 };
export const UNKNOWN_LINK_POLICY: BucketPolicy = { name: 'unknown-link', capacity: 30, refillPerSecond: 0.5 };

export type LinkLimiter = {
  /**
   * Before the lookup. `linkKey` is the well-formed token's bucket, null for a malformed one.
   * Returns false (with Retry-After set) when the address's unknown links or the link's own
   * bucket are used up.
   */
  admit(req: FastifyRequest, reply: FastifyReply, linkKey: string | null): Promise<boolean>;
  /** After a lookup that found nothing the link could show. */
  unknown(req: FastifyRequest): Promise<void>;
};

export function linkLimiter(limiter: RateLimiter, clock: Clock, metrics?: Metrics): LinkLimiter {
  const refuse = (reply: FastifyReply, retryAfterSeconds: number, policy: BucketPolicy): boolean => {
    countRefusal(metrics, policy.name);
    reply.header('retry-after', String(retryAfterSeconds));
    return false;
  };
  return {
    async admit(req, reply, linkKey) {
      const address = await limiter.peek(`ip:${req.ip}`, UNKNOWN_LINK_POLICY, clock.now());
      if (!address.allowed) return refuse(reply, address.retryAfterSeconds, UNKNOWN_LINK_POLICY);
      if (linkKey === null) return true;
      const link = await limiter.take(linkKey, LINK_POLICY, clock.now());
      return link.allowed || refuse(reply, link.retryAfterSeconds, LINK_POLICY);
    },
    async unknown(req) {
      await limiter.take(`ip:${req.ip}`, UNKNOWN_LINK_POLICY, clock.now());
    },
  };
}
