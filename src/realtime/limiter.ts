// The rate-limit port. The bucket arithmetic is pure (domain/token-bucket.ts); this decides where
// bucket state lives: in this process, or in Redis when several nodes must share it.
import { takeToken, type BucketPolicy, type BucketState, type TakeResult } from '../domain/token-bucket.ts';

export interface RateLimiter {
  take(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult>;
  /** What take would answer now, taking nothing: for a bucket charged only after the request's outcome is known. */
  peek(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult>;
  close(): Promise<void>;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, BucketState>();
  private lastSweep = 0;
  /** Buckets of several policies share the map (API, login): a sweep must wait for the longest window. */
  private longestWindowMs = 0;

  async take(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult> {
    const id = `${policy.name}:${bucketKey}`;
    const result = takeToken(policy, this.buckets.get(id), nowMs);
    this.buckets.set(id, result.state);
    this.sweep(policy, nowMs);
    return result;
  }

  async peek(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult> {
    return takeToken(policy, this.buckets.get(`${policy.name}:${bucketKey}`), nowMs);
  }

  // A bucket idle for a whole window is full again and carries no information: drop it, so
  // memory is bounded by the keys active in the last window, not by every key ever seen.
  private sweep(policy: BucketPolicy, nowMs: number): void {
    this.longestWindowMs = Math.max(this.longestWindowMs, (policy.capacity / policy.refillPerSecond) * 1000);
    if (nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    for (const [id, state] of this.buckets) if (nowMs - state.updatedAtMs > this.longestWindowMs) this.buckets.delete(id);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
