// Live-update fan-out. Every committed change publishes a small message after commit; SSE hubs
// subscribe. In one process this is an in-memory bus; with REDIS_URL a Redis pub/sub bus carries
// the same messages between nodes.
import type { Bus, BusHandler, BusMessage } from '../core/bus.ts';

/** What a local publish answers: delivered by the time it returns (one promise for every publish). */
const DELIVERED: Promise<void> = Promise.resolve();

export class MemoryBus implements Bus {
  private readonly handlers = new Map<string, Set<BusHandler>>();

  publish(channel: string, message: BusMessage): Promise<void> {
    this.deliver(channel, message);
    return DELIVERED;
  }

  private deliver(channel: string, message: BusMessage): void {
    const set = this.handlers.get(channel);
    if (set === undefined) return;
    for (const h of [...set]) {
      try {
        h(message);
      } catch {
        // one broken subscriber must not stop the others
      }
    }
  }

  subscribe(channel: string, handler: BusHandler): () => void {
    let set = this.handlers.get(channel);
    if (set === undefined) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0) this.handlers.delete(channel);
    };
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
