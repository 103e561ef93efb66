// Verified API keys, kept briefly so that a request costs one SHA-256 and a map lookup instead of
// a store query (ARCHITECTURE.md: "cache verified keys briefly, with revocation honoured").
// Revocations and plan changes made through this service clear every node's cache at once (the
// credential-change hook, then the bus). A change made by the CLI in another process clears it
// too: through Redis when configured, and on the embedded store through the store itself
// (credential-changes.ts); only on PostgreSQL without Redis is it honoured when the entry expires
// (API_KEY_CACHE_MS, 5 s by default).
export type CachedKey<T> = { value: T; expiresAt: number };

export class KeyCache<T> {
  private readonly entries = new Map<string, CachedKey<T>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  get(hash: string, now: number): T | undefined {
    const e = this.entries.get(hash);
    if (e === undefined) return undefined;
    if (e.expiresAt <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return e.value;
  }

  set(hash: string, value: T, now: number): void {
    if (this.ttlMs <= 0) return;
    // Oldest first: Map keeps insertion order, so a full cache drops the entry cached longest ago.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { value, expiresAt: now + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
