// Rate limits of the customer page and the board (PRODUCT.md §8: their own, generous buckets).
// Counted per link token, so one busy café behind one public IP is never throttled as a whole;
// requests for unknown tokens are counted per IP, which is what slows down guessing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BucketPolicy } from '../../domain/token-bucket.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import type { Clock } from '../../actions/ctx.ts';

/** A page reconnecting, confirming rings and posting its buttons stays far below this. */
export const LINK_POLICY: BucketPolicy = { name: 'link', capacity: 120, refillPerSecond: 1 };
export const UNKNOWN_LINK_POLICY: BucketPolicy = { name: 'unknown-link', capacity: 30, refillPerSecond: 0.5 };

export type LinkLimiter = (req: FastifyRequest, reply: FastifyReply, key: string, policy: BucketPolicy) => Promise<boolean>;

/** Returns false (with Retry-After set) when the bucket is empty. */
export function linkLimiter(limiter: RateLimiter, clock: Clock): LinkLimiter {
  return async (_req, reply, key, policy) => {
    const r = await limiter.take(key, policy, clock.now());
    if (r.allowed) return true;
    reply.header('retry-after', String(r.retryAfterSeconds));
    return false;
  };
}
