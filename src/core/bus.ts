// Live-update fan-out, as actions see it: every committed change publishes a small message after
// commit; SSE hubs subscribe. In one process it is an in-memory bus (src/realtime/bus.ts); with
// REDIS_URL a Redis pub/sub bus carries the same messages between nodes (src/realtime/redis-bus.ts).

export type BusMessage = { type: string; [key: string]: unknown };
export type BusHandler = (message: BusMessage) => void;

export interface Bus {
  /**
   * Resolves once every node can have the message: delivered to this node's subscribers, or taken
   * by Redis, which has then handed it to every subscribed node. Never rejects; most publishers do
   * not wait (a lost live update is healed by resync), a credential change does (credential-news.ts).
   */
  publish(channel: string, message: BusMessage): Promise<void>;
  subscribe(channel: string, handler: BusHandler): () => void;
  close(): Promise<void>;
}

/** The bus topics: one per ticket (its page), one per branch and mode (staff and boards), and the session changes. */
export const channels = {
  ticket: (ticketId: string) => `ticket:${ticketId}`,
  branch: (branchId: string, mode: string) => `branch:${branchId}:${mode}`,
  auth: 'auth',
};
