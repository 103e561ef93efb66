// Shared state through Redis, as several nodes see it. These tests need a Redis server: they run
// in the PostgreSQL + Redis stage of CI (TEST_REDIS_URL), where every node shares one Redis.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisRateLimiter } from '../../src/realtime/redis-limiter.ts';
import { RedisBus } from '../../src/realtime/redis-bus.ts';
import type { BusMessage } from '../../src/core/bus.ts';
import { needsRedis } from '../helpers/store.ts';

const url = process.env.TEST_REDIS_URL ?? '';
{
  const clients: Redis[] = [];
  const client = (u: string = url, opts = {}): Redis => {
    const c = new Redis(u, { maxRetriesPerRequest: 1, ...opts });
    c.on('error', () => {});
    clients.push(c);
    return c;
  };
  after(async () => {
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  });
  const writes = { name: 'writes', capacity: 120, refillPerSecond: 1 };

  test('three nodes share one burst of 120 writes per key', needsRedis, async () => {
    const nodes = [0, 1, 2].map(() => new RedisRateLimiter(client(), () => {}));
    const key = `key:${randomBytes(6).toString('hex')}`;
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 150 }, (_, i) => nodes[i % 3]!.take(key, writes, now)));
    assert.equal(results.filter((r) => r.allowed).length, 120);
    const denied = results.find((r) => !r.allowed)!;
    assert.equal(denied.retryAfterSeconds, 1);
    // one second later exactly one more token has been earned, on any node
    const later = await Promise.all([nodes[2]!.take(key, writes, now + 1000), nodes[0]!.take(key, writes, now + 1000)]);
    assert.deepEqual(later.map((r) => r.allowed).sort(), [false, true]);
  });

  test('a node whose clock is behind mints no tokens', needsRedis, async () => {
    const limiter = new RedisRateLimiter(client(), () => {});
    const key = `key:${randomBytes(6).toString('hex')}`;
    const now = Date.now();
    for (let i = 0; i < 120; i++) await limiter.take(key, writes, now);
    const behind = await limiter.take(key, writes, now - 60_000);
    assert.equal(behind.allowed, false);
  });

  test("with Redis unreachable the limiter uses the node's own buckets and reports each decision", needsRedis, async () => {
    const failures: Error[] = [];
    const limiter = new RedisRateLimiter(client('redis://127.0.0.1:1', { enableOfflineQueue: false, retryStrategy: () => null }), (e) =>
      failures.push(e),
    );
    const now = Date.now();
    const results = [];
    for (let i = 0; i < 121; i++) results.push(await limiter.take('key:x', writes, now));
    assert.equal(results.filter((r) => r.allowed).length, 120, 'the burst, once, on this node');
    assert.equal(results.at(-1)!.allowed, false);
    assert.equal(failures.length, 121);
    assert.equal(limiter.failures, 121);
  });

  test('a message published on one node reaches subscribers on another', needsRedis, async () => {
    const a = new RedisBus(client(), client());
    const b = new RedisBus(client(), client());
    const channel = `ticket:tk_${randomBytes(6).toString('hex')}`;
    const got = new Promise<BusMessage>((resolve) => b.subscribe(channel, resolve));
    await b.ready();
    a.publish(channel, { type: 'ticket.ready', n: 1 });
    assert.deepEqual(await got, { type: 'ticket.ready', n: 1 });
  });
}

if (url !== undefined) {
  const { RedisPresence } = await import('../../src/realtime/redis-presence.ts');
  test('presence written by one node is seen by another until its TTL runs out', needsRedis, async () => {
    let now = 1_000_000;
    const c1 = new Redis(url);
    const c2 = new Redis(url);
    try {
      const prefix = `rb:test:${randomBytes(4).toString('hex')}:`;
      const a = new RedisPresence(c1, { now: () => now, prefix });
      const b = new RedisPresence(c2, { now: () => now, prefix });
      await a.touch('board:br_1:live', 'conn-1', { queues: ['A'], voice: true }, 30_000);
      assert.deepEqual(await b.members('board:br_1:live'), [{ member: 'conn-1', info: { queues: ['A'], voice: true } }]);
      await a.touch('board:br_1:live', 'conn-3', { queues: ['B'], voice: false }, 60_000);
      now += 30_001;
      assert.deepEqual(await b.members('board:br_1:live'), [{ member: 'conn-3', info: { queues: ['B'], voice: false } }]);
      // The expired member's info went with it: a board reconnecting all day leaves no fields behind.
      assert.deepEqual(await c1.hkeys(`${prefix}board:br_1:live:info`), ['conn-3']);
      now += 30_000;
      assert.deepEqual(await b.members('board:br_1:live'), []);
      assert.equal(await c1.exists(`${prefix}board:br_1:live`, `${prefix}board:br_1:live:info`), 0);
      await a.touch('page:tk_1', 'conn-2', {}, 30_000);
      await b.leave('page:tk_1', 'conn-2');
      assert.deepEqual(await a.members('page:tk_1'), []);
    } finally {
      await Promise.all([c1.quit(), c2.quit()]);
    }
  });
}
