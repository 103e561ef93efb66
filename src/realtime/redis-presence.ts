// Presence shared by every node: a sorted set per scope scored by expiry time, and a hash with
// each member's info. Expired members are trimmed on read, and both keys expire with their newest
// member, so a node that dies leaves nothing behind for longer than one TTL.
import type { Redis } from 'ioredis';
import type { Presence, PresenceInfo, PresenceMember } from './presence.ts';

export class RedisPresence implements Presence {
  private readonly redis: Redis;
  private readonly now: () => number;
  private readonly prefix: string;

  constructor(redis: Redis, opts: { now?: () => number; prefix?: string } = {}) {
    this.redis = redis;
    this.now = opts.now ?? Date.now;
    this.prefix = opts.prefix ?? 'rb:presence:';
  }

  async touch(scope: string, member: string, info: PresenceInfo, ttlMs: number): Promise<void> {
    const key = this.prefix + scope;
    const expiresAt = this.now() + ttlMs;
    await this.redis
      .multi()
      .zadd(key, expiresAt, member)
      .hset(`${key}:info`, member, JSON.stringify(info))
      .pexpire(key, ttlMs * 2)
      .pexpire(`${key}:info`, ttlMs * 2)
      .exec();
  }

  async leave(scope: string, member: string): Promise<void> {
    const key = this.prefix + scope;
    await this.redis.multi().zrem(key, member).hdel(`${key}:info`, member).exec();
  }

  async members(scope: string): Promise<PresenceMember[]> {
    const key = this.prefix + scope;
    const now = this.now();
    const replies = await this.redis.multi().zremrangebyscore(key, '-inf', now).zrange(key, 0, -1).hgetall(`${key}:info`).exec();
    const names = (replies?.[1]?.[1] ?? []) as string[];
    const infos = (replies?.[2]?.[1] ?? {}) as Record<string, string>;
    return names.map((member) => ({ member, info: parse(infos[member]) }));
  }

  async close(): Promise<void> {}
}

function parse(raw: string | undefined): PresenceInfo {
  if (raw === undefined) return {};
  try {
    return JSON.parse(raw) as PresenceInfo;
  } catch {
    return {};
  }
}
