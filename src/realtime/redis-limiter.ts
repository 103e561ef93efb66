// Token buckets shared by every node: one Lua script per request refills and takes atomically in
// Redis, so a key gets its burst once across the cluster, not once per node. The script does
// only the refill and the decision; the header values come from the same pure arithmetic as the
// in-process limiter (domain/token-bucket.ts), so both limiters answer identically.
//
// If Redis is unreachable the node falls back to buckets of its own (decision 0053): each node
// then enforces the limits by itself, so a key may get its burst once per node while Redis is
// down, but no longer gets unlimited requests, and the request is not delayed. A warning is
// logged and the `failures` counter grows (exported as a metric). Refusing every request because
// the limiter's store is down would turn a Redis outage into a full API outage.
import type { Redis } from 'ioredis';
import { takeToken, windowSeconds, type BucketPolicy, type TakeResult } from '../domain/token-bucket.ts';
import { MemoryRateLimiter, type RateLimiter } from './limiter.ts';
import type { RedisBreaker } from './redis-breaker.ts';

// KEYS[1] bucket; ARGV: capacity, refill per second, now ms, ttl ms, cost.
// Returns the refilled token count before taking (as a string: Lua numbers become integers in
// replies) and the timestamp the bucket is now at.
const SCRIPT = `
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local cost = tonumber(ARGV[5])
local state = redis.call('HMGET', KEYS[1], 't', 'u')
local tokens = tonumber(state[1])
local updated = tonumber(state[2])
if tokens == nil or updated == nil then
  tokens = cap
  updated = now
elseif now >= updated then
  tokens = math.min(cap, math.max(0, tokens) + (now - updated) * rate / 1000)
  updated = now
end
local rounded = math.floor(tokens + 0.5)
if math.abs(tokens - rounded) < 1e-9 then tokens = rounded end
local after = tokens
if tokens + 1e-9 >= cost then after = math.max(0, tokens - cost) end
redis.call('HSET', KEYS[1], 't', tostring(after), 'u', tostring(updated))
redis.call('PEXPIRE', KEYS[1], ttl)
return { tostring(tokens), tostring(updated) }
`;

const DOWN = new Error('redis is down (breaker open)');

type WithBucket = Redis & { rbTakeToken(key: string, ...args: string[]): Promise<[string, string]> };

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: WithBucket;
  private readonly onFailure: (err: Error) => void;
  failures = 0;

  private readonly prefix: string;
  /** This node's own buckets, used while Redis cannot be asked. */
  private readonly local = new MemoryRateLimiter();
  private readonly breaker: RedisBreaker | null;

  constructor(redis: Redis, onFailure: (err: Error) => void, prefix = 'rb:', breaker: RedisBreaker | null = null) {
    this.prefix = prefix;
    this.breaker = breaker;
    redis.defineCommand('rbTakeToken', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as WithBucket;
    this.onFailure = onFailure;
  }

  async take(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult> {
    // A full window idle means a full bucket again, so the key can expire then.
    const ttl = windowSeconds(policy) * 1000 + 1000;
    if (this.breaker !== null && !this.breaker.up) {
      this.failed(DOWN);
      return this.local.take(bucketKey, policy, nowMs);
    }
    try {
      const [tokens, updated] = await this.redis.rbTakeToken(
        this.redisKey(bucketKey, policy),
        String(policy.capacity),
        String(policy.refillPerSecond),
        String(nowMs),
        String(ttl),
        '1',
      );
      // Re-run the take on the refilled state locally: same decision, plus header values.
      return takeToken(policy, { tokens: Number(tokens), updatedAtMs: Number(updated) }, Math.max(nowMs, Number(updated)));
    } catch (err) {
      this.failed(err as Error);
      return this.local.take(bucketKey, policy, nowMs);
    }
  }

  // A plain read: nothing is written. Requests that pass a peek together are each charged by a
  // take afterwards, so a burst overshoots the bucket by at most the requests in flight at once.
  async peek(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult> {
    if (this.breaker !== null && !this.breaker.up) {
      this.failed(DOWN);
      return this.local.peek(bucketKey, policy, nowMs);
    }
    try {
      const [tokens, updated] = await this.redis.hmget(this.redisKey(bucketKey, policy), 't', 'u');
      if (tokens === null || updated === null) return takeToken(policy, undefined, nowMs);
      return takeToken(policy, { tokens: Number(tokens), updatedAtMs: Number(updated) }, Math.max(nowMs, Number(updated)));
    } catch (err) {
      this.failed(err as Error);
      return this.local.peek(bucketKey, policy, nowMs);
    }
  }

  /** A decision made by this node's own buckets: counted and reported, and Redis is left alone a while. */
  private failed(err: Error): void {
    this.failures++;
    this.onFailure(err);
    if (err !== DOWN) this.breaker?.failed();
  }

  private redisKey(bucketKey: string, policy: BucketPolicy): string {
    return `${this.prefix}rl:${policy.name}:${bucketKey}`;
  }

  async close(): Promise<void> {
    await this.local.close();
  }
}
