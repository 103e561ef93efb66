// Presence: which customer pages and display boards are connected right now, across every node.
// An entry lives until its TTL runs out; the node holding the connection refreshes it on every
// heartbeat, so the entries of a node that died vanish by themselves. Rings ask presence first:
// with nobody there, a channel answers "not delivered" at once instead of waiting out the deadline.
//
// Scopes are strings (`page:<ticket>`, `board:<branch>:<mode>`); a member is one connection.
// With several nodes this port gets a Redis implementation (a sorted set per scope scored by
// expiry, plus a hash of infos); the in-memory one below serves one process.

export type PresenceInfo = Record<string, unknown>;
export type PresenceMember = { member: string; info: PresenceInfo };

export interface Presence {
  /** Adds `member` to `scope`, or refreshes it, until `ttlMs` from now. */
  touch(scope: string, member: string, info: PresenceInfo, ttlMs: number): Promise<void>;
  leave(scope: string, member: string): Promise<void>;
  /** The members whose TTL has not run out. */
  members(scope: string): Promise<PresenceMember[]>;
  close(): Promise<void>;
}

export const presenceScopes = {
  page: (ticketId: string) => `page:${ticketId}`,
  board: (branchId: string, mode: string) => `board:${branchId}:${mode}`,
};

/** What a board tells presence about itself: what it shows and whether it may speak. */
export type BoardPresence = { display: string; queues: string[]; voice: boolean };

type Entry = { info: PresenceInfo; expiresAt: number };

export class MemoryPresence implements Presence {
  private readonly scopes = new Map<string, Map<string, Entry>>();
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | null = null;

  /** `now` is wall time by default: heartbeats are real time even when a test fakes the business clock. */
  constructor(opts: { now?: () => number; sweepMs?: number } = {}) {
    this.now = opts.now ?? Date.now;
    if (opts.sweepMs !== 0) {
      this.sweeper = setInterval(() => this.sweep(), opts.sweepMs ?? 60_000);
      this.sweeper.unref();
    }
  }

  async touch(scope: string, member: string, info: PresenceInfo, ttlMs: number): Promise<void> {
    let entries = this.scopes.get(scope);
    if (entries === undefined) {
      entries = new Map();
      this.scopes.set(scope, entries);
    }
    entries.set(member, { info, expiresAt: this.now() + ttlMs });
  }

  async leave(scope: string, member: string): Promise<void> {
    const entries = this.scopes.get(scope);
    if (entries === undefined) return;
    entries.delete(member);
    if (entries.size === 0) this.scopes.delete(scope);
  }

  async members(scope: string): Promise<PresenceMember[]> {
    const entries = this.scopes.get(scope);
    if (entries === undefined) return [];
    const now = this.now();
    const out: PresenceMember[] = [];
    for (const [member, e] of entries) {
      if (e.expiresAt > now) out.push({ member, info: e.info });
      else entries.delete(member);
    }
    if (entries.size === 0) this.scopes.delete(scope);
    return out;
  }

  /** Every entry still alive, with the time it has left (what a node writes to Redis again when it is back). */
  alive(): Array<{ scope: string; member: string; info: PresenceInfo; ttlMs: number }> {
    const now = this.now();
    const out: Array<{ scope: string; member: string; info: PresenceInfo; ttlMs: number }> = [];
    for (const [scope, entries] of this.scopes) {
      for (const [member, e] of entries) if (e.expiresAt > now) out.push({ scope, member, info: e.info, ttlMs: e.expiresAt - now });
    }
    return out;
  }

  /** Drops expired entries of scopes nobody asks about, so memory follows live connections. */
  sweep(): void {
    const now = this.now();
    for (const [scope, entries] of this.scopes) {
      for (const [member, e] of entries) if (e.expiresAt <= now) entries.delete(member);
      if (entries.size === 0) this.scopes.delete(scope);
    }
  }

  async close(): Promise<void> {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
    this.scopes.clear();
  }
}
