// Live updates across nodes: every publish goes through Redis pub/sub, and each node forwards
// what it receives to the handlers subscribed locally (SSE streams, ring acknowledgements).
// Redis pub/sub keeps nothing: a node that misses a message (disconnected) relies on clients'
// resync on reconnect (Last-Event-ID → fresh snapshot), which the hubs already do.
//
// While Redis is down (the breaker, decision 0053) a publish is delivered to this node's own
// subscribers, so a ring still reaches the pages and boards connected to the node that rings; a
// publish that fails is delivered locally too. Subscriptions made meanwhile wait in the
// subscriber's offline queue and ioredis renews them all when it reconnects.
import type { Redis } from 'ioredis';
import type { Bus, BusHandler, BusMessage } from '../core/bus.ts';
import { MemoryBus } from './bus.ts';
import type { RedisBreaker } from './redis-breaker.ts';

export class RedisBus implements Bus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly local = new MemoryBus();
  private readonly counts = new Map<string, number>();
  private readonly prefix: string;
  private readonly breaker: RedisBreaker | null;

  constructor(pub: Redis, sub: Redis, prefix = 'rb:bus:', breaker: RedisBreaker | null = null) {
    this.pub = pub;
    this.sub = sub;
    this.prefix = prefix;
    this.breaker = breaker;
    this.sub.on('message', (channel: string, raw: string) => {
      let message: BusMessage;
      try {
        message = JSON.parse(raw) as BusMessage;
      } catch {
        return;
      }
      this.local.publish(channel.slice(this.prefix.length), message);
    });
  }

  publish(channel: string, message: BusMessage): Promise<void> {
    if (this.breaker !== null && !this.breaker.up) return this.local.publish(channel, message);
    // Redis answers once it has handed the message to every subscribed node; the command times out
    // after REDIS_COMMAND_TIMEOUT_MS, so nobody waits on a Redis that does not answer.
    return this.pub.publish(this.prefix + channel, JSON.stringify(message)).then(
      () => {},
      () => {
        this.breaker?.failed();
        return this.local.publish(channel, message);
      },
    );
  }

  subscribe(channel: string, handler: BusHandler): () => void {
    const n = this.counts.get(channel) ?? 0;
    this.counts.set(channel, n + 1);
    if (n === 0) this.sub.subscribe(this.prefix + channel).catch(() => {});
    const off = this.local.subscribe(channel, handler);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      off();
      const left = (this.counts.get(channel) ?? 1) - 1;
      if (left <= 0) {
        this.counts.delete(channel);
        this.sub.unsubscribe(this.prefix + channel).catch(() => {});
      } else {
        this.counts.set(channel, left);
      }
    };
  }

  /** Resolves once Redis has confirmed every current subscription (tests and ring acks need it). */
  async ready(): Promise<void> {
    await this.sub.ping().catch(() => {});
  }

  async close(): Promise<void> {
    await this.local.close();
  }
}
