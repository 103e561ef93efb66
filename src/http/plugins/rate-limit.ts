// Token buckets per API key and branch (PRODUCT.md §8). Every authenticated /v1 request counts,
// replays and errors included, and every answer carries the RateLimit fields.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { BucketPolicy } from '../../domain/token-bucket.ts';
import { rateLimitField, rateLimitPolicyField } from '../../domain/rate-limit-headers.ts';
import { AppError } from '../../domain/errors.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import { countRefusal } from '../../metrics.ts';
import type { Metrics } from '../../core/metrics.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Read-only work the route starts as the bucket is asked, so that the two round trips overlap
     * (ready's ring look-ahead: the customer's ring waits for both). It runs for a request that is
     * then refused, too, so it must write nothing.
     */
    startEarly?: (req: FastifyRequest) => void;
  }
}

/**
 * Work a route starts early (see `startEarly`), kept per request for its handler: `take` returns
 * what `start` began for this request, or undefined when it began nothing.
 */
export function earlyWork<T>(start: (req: FastifyRequest) => T | undefined): {
  startEarly: (req: FastifyRequest) => void;
  take: (req: FastifyRequest) => T | undefined;
} {
  const started = new WeakMap<FastifyRequest, T>();
  return {
    startEarly(req) {
      const work = start(req);
      if (work !== undefined) started.set(req, work);
    },
    take: (req) => started.get(req),
  };
}

export function policies(config: Config): { writes: BucketPolicy; reads: BucketPolicy } {
  return {
    writes: { name: 'writes', ...config.rateLimits.writes },
    reads: { name: 'reads', ...config.rateLimits.reads },
  };
}

export function registerRateLimit(app: FastifyInstance, config: Config, limiter: RateLimiter, clock: Clock, metrics?: Metrics): void {
  const { writes, reads } = policies(config);
  const policyField = rateLimitPolicyField([writes, reads]);
  app.addHook('onRequest', async (req, reply) => {
    if (req.auth === null) return;
    const policy = req.method === 'GET' || req.method === 'HEAD' ? reads : writes;
    req.routeOptions.config.startEarly?.(req);
    const result = await limiter.take(req.auth.bucketKey, policy, clock.now());
    reply.header('RateLimit-Policy', policyField);
    reply.header('RateLimit', rateLimitField(policy, result));
    if (!result.allowed) {
      countRefusal(metrics, policy.name);
      throw new AppError('rate-limited', `Too many ${policy.name} for this API key; retry in ${result.retryAfterSeconds} s.`, {
        retry_after: result.retryAfterSeconds,
        violated_policies: [policy.name],
      });
    }
  });
}
