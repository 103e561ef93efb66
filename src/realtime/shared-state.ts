// What nodes must share to be interchangeable: live updates (bus) and rate-limit buckets. In one
// process both live in memory; with REDIS_URL both live in Redis, so any number of stateless
// nodes behave as one. Redis going away degrades a node and never takes it out (decision 0053):
// commands time out quickly, a breaker stops asking Redis while it is down (redis-breaker.ts), and
// each use falls back to this node's own buckets, presence and subscribers until Redis is back.
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../core/config.ts';
import { MemoryBus } from './bus.ts';
import type { Bus } from '../core/bus.ts';
import { MemoryRateLimiter, type RateLimiter } from './limiter.ts';
import { RedisBus } from './redis-bus.ts';
import { RedisRateLimiter } from './redis-limiter.ts';
import { RedisPresence } from './redis-presence.ts';
import type { Presence } from './presence.ts';
import { RedisBreaker } from './redis-breaker.ts';
import { SharedPresence } from './shared-presence.ts';

export type SharedState = {
  bus: Bus;
  limiter: RateLimiter;
  /** Shared presence of pages and boards; undefined in one process (the live module keeps its own). */
  presence: Presence | undefined;
  /** The command connection, for presence and health checks; null without Redis. */
  redis: Redis | null;
  /** Whether this node uses Redis now; null without Redis. */
  breaker: RedisBreaker | null;
  /** Resolves when Redis answers; rejects at once while the breaker holds it down. */
  ping(): Promise<void>;
  close(): Promise<void>;
};

export async function createSharedState(
  config: Pick<Config, 'redisUrl' | 'redisPrefix' | 'redisCommandTimeoutMs' | 'redisRetryMs'>,
  log: FastifyBaseLogger,
  onLimiterFailure: () => void = () => {},
): Promise<SharedState> {
  if (config.redisUrl === null) {
    const bus = new MemoryBus();
    const limiter = new MemoryRateLimiter();
    return {
      bus,
      limiter,
      presence: undefined,
      redis: null,
      breaker: null,
      ping: async () => {},
      close: async () => {
        await limiter.close();
        await bus.close();
      },
    };
  }
  // Auto-pipelining: commands issued in one turn of the event loop (every request's bucket, every
  // commit's publish) go to Redis in one write, not one each. A command never waits for a Redis
  // that is not there: none is queued while disconnected, none is retried on another connection,
  // and one unanswered for REDIS_COMMAND_TIMEOUT_MS fails (then the breaker takes over).
  const options = {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    commandTimeout: config.redisCommandTimeoutMs,
    lazyConnect: false,
    connectionName: 'readybell',
    enableAutoPipelining: true,
    // Reconnect soon after Redis is back: the node rejoins within about a second, with no restart.
    retryStrategy: (attempt: number) => Math.min(attempt * 100, config.redisRetryMs),
  };
  // Imported only with REDIS_URL: a node on its own never loads the client (0.1 s of CPU at start).
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.redisUrl, options);
  const pub = new Redis(config.redisUrl, options);
  // The subscriber keeps its offline queue and no time limit: a subscription made while Redis is
  // down is sent when it is back (and ioredis renews the earlier ones); nothing waits for it.
  const sub = new Redis(config.redisUrl, {
    ...options,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    commandTimeout: undefined,
  });
  // ioredis reconnects by itself; an error event without a listener would crash the process.
  // Logged once per outage, not once per reconnect attempt.
  const breaker = new RedisBreaker([redis, pub], {
    retryMs: config.redisRetryMs,
    watched: [sub],
    onChange: (up) =>
      up ? log.warn('redis is back: shared rate limits, presence and live updates again') : log.warn('redis unreachable: serving degraded'),
  });
  for (const c of [redis, pub, sub]) c.on('error', (err: Error) => breaker.up && log.warn({ err: err.message }, 'redis connection error'));
  const prefix = config.redisPrefix;
  const bus = new RedisBus(pub, sub, `${prefix}bus:`, breaker);
  let lastWarn = 0;
  const limiter = new RedisRateLimiter(
    redis,
    (err) => {
      onLimiterFailure();
      if (Date.now() - lastWarn > 10_000) {
        lastWarn = Date.now();
        log.warn({ err: err.message }, "rate limiter cannot reach Redis; using this node's own buckets");
      }
    },
    prefix,
    breaker,
  );
  return {
    bus,
    limiter,
    presence: new SharedPresence(new RedisPresence(redis, { prefix: `${prefix}presence:` }), breaker),
    redis,
    breaker,
    ping: async () => {
      if (!breaker.up) throw new Error('redis unreachable');
      await redis.ping();
    },
    close: async () => {
      breaker.close();
      await bus.close();
      // QUIT only where Redis is there to answer it: the subscriber would keep it queued forever.
      await Promise.all([redis, pub, sub].map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect())));
    },
  };
}
