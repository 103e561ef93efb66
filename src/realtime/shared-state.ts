// What nodes must share to be interchangeable: live updates (bus) and rate-limit buckets. In one
// process both live in memory; with REDIS_URL both live in Redis, so any number of stateless
// nodes behave as one.
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../core/config.ts';
import { MemoryBus } from './bus.ts';
import type { Bus } from '../core/bus.ts';
import { MemoryRateLimiter, type RateLimiter } from './limiter.ts';
import { RedisBus } from './redis-bus.ts';
import { RedisRateLimiter } from './redis-limiter.ts';
import { RedisPresence } from './redis-presence.ts';
import type { Presence } from './presence.ts';

export type SharedState = {
  bus: Bus;
  limiter: RateLimiter;
  /** Shared presence of pages and boards; undefined in one process (the live module keeps its own). */
  presence: Presence | undefined;
  /** The command connection, for presence and health checks; null without Redis. */
  redis: Redis | null;
  ping(): Promise<void>;
  close(): Promise<void>;
};

export function createSharedState(
  config: Pick<Config, 'redisUrl' | 'redisPrefix'>,
  log: FastifyBaseLogger,
  onLimiterFailure: () => void = () => {},
): SharedState {
  if (config.redisUrl === null) {
    const bus = new MemoryBus();
    const limiter = new MemoryRateLimiter();
    return {
      bus,
      limiter,
      presence: undefined,
      redis: null,
      ping: async () => {},
      close: async () => {
        await limiter.close();
        await bus.close();
      },
    };
  }
  // Auto-pipelining: commands issued in one turn of the event loop (every request's bucket, every
  // commit's publish) go to Redis in one write, not one each.
  const options = {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    lazyConnect: false,
    connectionName: 'readybell',
    enableAutoPipelining: true,
  };
  const redis = new Redis(config.redisUrl, options);
  const pub = new Redis(config.redisUrl, options);
  const sub = new Redis(config.redisUrl, { ...options, maxRetriesPerRequest: null });
  // ioredis reconnects by itself; an error event without a listener would crash the process.
  for (const c of [redis, pub, sub]) c.on('error', (err: Error) => log.warn({ err: err.message }, 'redis connection error'));
  const prefix = config.redisPrefix;
  const bus = new RedisBus(pub, sub, `${prefix}bus:`);
  let lastWarn = 0;
  const limiter = new RedisRateLimiter(
    redis,
    (err) => {
      onLimiterFailure();
      if (Date.now() - lastWarn > 10_000) {
        lastWarn = Date.now();
        log.warn({ err: err.message }, 'rate limiter cannot reach Redis; failing open');
      }
    },
    prefix,
  );
  return {
    bus,
    limiter,
    presence: new RedisPresence(redis, { prefix: `${prefix}presence:` }),
    redis,
    ping: async () => {
      await redis.ping();
    },
    close: async () => {
      await bus.close();
      await Promise.all([redis, pub, sub].map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
