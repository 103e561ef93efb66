// Presence across nodes that outlives a Redis outage (decision 0053). This node keeps its own
// entries (the pages and boards connected to it) in memory as well as in Redis. While Redis is
// down, members() answers from them: a ring from this node still finds the pages and boards it can
// reach through its local bus, and answers "no page open" at once for the others rather than
// waiting for Redis. When Redis is back this node writes its entries to it again at once, so a
// ring from another node finds them without waiting for their next heartbeat (a Redis that
// restarted comes back empty).
import { MemoryPresence, type Presence, type PresenceInfo, type PresenceMember } from './presence.ts';
import type { RedisBreaker } from './redis-breaker.ts';

/** Entries written back to Redis together (auto-pipelined) when it is back. */
const REPUBLISH_BATCH = 500;

export class SharedPresence implements Presence {
  private readonly local = new MemoryPresence();
  private readonly redis: Presence;
  private readonly breaker: RedisBreaker;

  constructor(redis: Presence, breaker: RedisBreaker) {
    this.redis = redis;
    this.breaker = breaker;
    breaker.onChange((up) => {
      if (up) void this.republish();
    });
  }

  async touch(scope: string, member: string, info: PresenceInfo, ttlMs: number): Promise<void> {
    await this.local.touch(scope, member, info, ttlMs);
    await this.breaker.run(
      () => this.redis.touch(scope, member, info, ttlMs),
      () => undefined,
    );
  }

  async leave(scope: string, member: string): Promise<void> {
    await this.local.leave(scope, member);
    await this.breaker.run(
      () => this.redis.leave(scope, member),
      () => undefined,
    );
  }

  async members(scope: string): Promise<PresenceMember[]> {
    const mine = await this.local.members(scope);
    // This node's own entries count even when Redis has not got them back yet (just after it returned).
    const shared = await this.breaker.run(
      () => this.redis.members(scope),
      () => [],
    );
    const seen = new Set(shared.map((m) => m.member));
    return [...shared, ...mine.filter((m) => !seen.has(m.member))];
  }

  private async republish(): Promise<void> {
    const entries = this.local.alive();
    for (let i = 0; i < entries.length && this.breaker.up; i += REPUBLISH_BATCH) {
      await Promise.all(
        entries.slice(i, i + REPUBLISH_BATCH).map((e) =>
          this.breaker.run(
            () => this.redis.touch(e.scope, e.member, e.info, e.ttlMs),
            () => undefined,
          ),
        ),
      );
    }
  }

  async close(): Promise<void> {
    await this.local.close();
    await this.redis.close();
  }
}
