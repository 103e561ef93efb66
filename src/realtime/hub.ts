// The SSE hub of one node: the live connections it holds, the bus topics they need (subscribed
// once per node, however many connections share a topic), and the heartbeat that keeps both the
// connections and their presence entries alive. Everything that crosses nodes goes through the
// bus and presence; the hub only knows its own connections.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Bus, BusMessage } from '../core/bus.ts';
import type { Presence, PresenceInfo } from './presence.ts';
import type { LiveStream } from './sse.ts';

export type LiveConnection = {
  stream: LiveStream;
  topics: readonly string[];
  presence: { scope: string; info: PresenceInfo } | null;
  onMessage(topic: string, message: BusMessage): void;
  /** Called on every heartbeat tick, for work that depends on time passing. */
  onHeartbeat?(): void;
  /** set by the hub: this connection's presence member id */
  member?: string;
};

export type HubOptions = {
  heartbeatMs: number;
  /** Called once per message per topic, before the connections see it (cache invalidation). */
  onTopicMessage?: (topic: string, message: BusMessage) => void;
  /** Called when this node starts or stops listening to a topic: caches of it cannot be trusted. */
  onTopicChange?: (topic: string) => void;
};

type Topic = { unsubscribe: () => void; conns: Set<LiveConnection> };

/**
 * The heartbeat is spread over this many ticks per interval: each connection is pinged once per
 * interval, but 5,000 streams never all at once (a burst would delay a ring written meanwhile).
 */
const MAX_SLICES = 15;
const MIN_TICK_MS = 50;

export class LiveHub {
  private readonly bus: Bus;
  private readonly presence: Presence;
  private readonly log: FastifyBaseLogger | null;
  private readonly opts: HubOptions;
  private readonly topics = new Map<string, Topic>();
  private readonly conns = new Set<LiveConnection>();
  private readonly slices: Array<Set<LiveConnection>>;
  private tick = 0;
  private readonly node = randomBytes(6).toString('base64url');
  private seq = 0;
  private timer: NodeJS.Timeout | null;

  constructor(deps: { bus: Bus; presence: Presence; log?: FastifyBaseLogger }, opts: HubOptions) {
    this.bus = deps.bus;
    this.presence = deps.presence;
    this.log = deps.log ?? null;
    this.opts = opts;
    const n = Math.max(1, Math.min(MAX_SLICES, Math.floor(opts.heartbeatMs / MIN_TICK_MS)));
    this.slices = Array.from({ length: n }, () => new Set<LiveConnection>());
    this.timer = setInterval(() => this.heartbeat(), opts.heartbeatMs / n);
    this.timer.unref();
  }

  get heartbeatMs(): number {
    return this.opts.heartbeatMs;
  }

  /** Presence entries outlive two missed heartbeats, not more. */
  get presenceTtlMs(): number {
    return this.opts.heartbeatMs * 3;
  }

  get size(): number {
    return this.conns.size;
  }

  /**
   * Subscribes the connection's topics and announces it in presence. Topics come first, so that
   * nothing published after the caller reads its snapshot can be missed.
   */
  async attach(conn: LiveConnection): Promise<void> {
    conn.member = `${this.node}.${(++this.seq).toString(36)}`;
    this.conns.add(conn);
    this.slices[this.seq % this.slices.length]!.add(conn);
    for (const name of conn.topics) {
      let topic = this.topics.get(name);
      if (topic === undefined) {
        const t: Topic = { conns: new Set(), unsubscribe: () => {} };
        t.unsubscribe = this.bus.subscribe(name, (m) => this.dispatch(name, t, m));
        this.topics.set(name, t);
        topic = t;
        this.opts.onTopicChange?.(name);
      }
      topic.conns.add(conn);
    }
    conn.stream.onClose(() => this.detach(conn));
    if (conn.presence !== null && !conn.stream.closed) {
      await this.presence.touch(conn.presence.scope, conn.member, conn.presence.info, this.presenceTtlMs);
    }
  }

  private dispatch(name: string, topic: Topic, message: BusMessage): void {
    this.opts.onTopicMessage?.(name, message);
    for (const conn of topic.conns) {
      try {
        conn.onMessage(name, message);
      } catch (err) {
        this.log?.warn({ err }, 'live connection handler failed');
      }
    }
  }

  private detach(conn: LiveConnection): void {
    if (!this.conns.delete(conn)) return;
    for (const slice of this.slices) slice.delete(conn);
    for (const name of conn.topics) {
      const topic = this.topics.get(name);
      if (topic === undefined) continue;
      topic.conns.delete(conn);
      if (topic.conns.size === 0) {
        topic.unsubscribe();
        this.topics.delete(name);
        this.opts.onTopicChange?.(name);
      }
    }
    if (conn.presence !== null) void this.presence.leave(conn.presence.scope, conn.member!).catch(() => {});
  }

  /** Connections listening to `topic` on this node. */
  connections(topic: string): ReadonlySet<LiveConnection> {
    return this.topics.get(topic)?.conns ?? new Set();
  }

  /** One tick: pings the connections of the next slice and refreshes their presence. */
  heartbeat(): void {
    const ttl = this.presenceTtlMs;
    const slice = this.slices[this.tick++ % this.slices.length]!;
    for (const conn of slice) {
      conn.stream.ping();
      conn.onHeartbeat?.();
      if (conn.presence !== null && !conn.stream.closed) {
        void this.presence
          .touch(conn.presence.scope, conn.member!, conn.presence.info, ttl)
          .catch((err) => this.log?.warn({ err }, 'presence refresh failed'));
      }
    }
  }

  /** Ends every stream (clients reconnect to another node) and stops the heartbeat. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    for (const conn of [...this.conns]) conn.stream.close();
  }
}
