// Presence shared by every node: a sorted set per scope scored by expiry time, and a hash with
// each member's info. Expired members are trimmed on read, and both keys expire with their newest
// member, so a node that dies leaves nothing behind for longer than one TTL.
//
// Each operation is one Lua script rather than a MULTI: a ready asks presence twice (page and
// board), and ioredis builds a Pipeline object per MULTI whose garbage outlives the request
// (about 4 KB promoted to the old generation per MULTI, measured), which lengthens every
// young-generation GC pause that a ring can land in (decision 0006).
import type { Redis } from 'ioredis';
import type { Presence, PresenceInfo, PresenceMember } from './presence.ts';

// KEYS: the scope's sorted set, its info hash. Every script keeps the two in step: an expired
// member's info goes with it, so a board that reconnects all day leaves no fields behind.
const TRIM = `
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #gone > 0 then
  redis.call('ZREM', KEYS[1], unpack(gone))
  redis.call('HDEL', KEYS[2], unpack(gone))
end
`;

// ARGV: now ms. Returns member, info, member, info, … (info false when missing).
const MEMBERS = `${TRIM}
local names = redis.call('ZRANGE', KEYS[1], 0, -1)
if #names == 0 then return {} end
local infos = redis.call('HMGET', KEYS[2], unpack(names))
local out = {}
for i, name in ipairs(names) do
  out[2 * i - 1] = name
  out[2 * i] = infos[i]
end
return out
`;

// ARGV: now ms, member, expires at ms, info JSON, key TTL ms.
const TOUCH = `${TRIM}
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
`;

// ARGV: member.
const LEAVE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`;

type WithPresence = Redis & {
  rbPresenceMembers(key: string, info: string, now: string): Promise<Array<string | null>>;
  rbPresenceTouch(key: string, info: string, now: string, member: string, expiresAt: string, json: string, ttl: string): Promise<number>;
  rbPresenceLeave(key: string, info: string, member: string): Promise<number>;
};

export class RedisPresence implements Presence {
  private readonly redis: WithPresence;
  private readonly now: () => number;
  private readonly prefix: string;

  constructor(redis: Redis, opts: { now?: () => number; prefix?: string } = {}) {
    redis.defineCommand('rbPresenceMembers', { numberOfKeys: 2, lua: MEMBERS });
    redis.defineCommand('rbPresenceTouch', { numberOfKeys: 2, lua: TOUCH });
    redis.defineCommand('rbPresenceLeave', { numberOfKeys: 2, lua: LEAVE });
    this.redis = redis as WithPresence;
    this.now = opts.now ?? Date.now;
    this.prefix = opts.prefix ?? 'rb:presence:';
  }

  async touch(scope: string, member: string, info: PresenceInfo, ttlMs: number): Promise<void> {
    const key = this.prefix + scope;
    const now = this.now();
    await this.redis.rbPresenceTouch(key, `${key}:info`, String(now), member, String(now + ttlMs), JSON.stringify(info), String(ttlMs * 2));
  }

  async leave(scope: string, member: string): Promise<void> {
    const key = this.prefix + scope;
    await this.redis.rbPresenceLeave(key, `${key}:info`, member);
  }

  async members(scope: string): Promise<PresenceMember[]> {
    const key = this.prefix + scope;
    const flat = await this.redis.rbPresenceMembers(key, `${key}:info`, String(this.now()));
    const out: PresenceMember[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ member: flat[i]!, info: parse(flat[i + 1] ?? undefined) });
    return out;
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
