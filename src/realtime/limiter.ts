// The rate-limit port. The bucket arithmetic is pure (domain/token-bucket.ts); this decides where
// bucket state lives: in this process, or in Redis when several nodes must share it.
import { takeToken, windowSeconds, type BucketPolicy, type BucketState, type TakeResult } from '../domain/token-bucket.ts';

export interface RateLimiter {
  take(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult>;
  /** What take would answer now, taking nothing: for a bucket charged only after the request's outcome is known. */
  peek(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult>;
  close(): Promise<void>;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { state: BucketState; windowMs: number }>();
  private lastSweep = 0;

  async take(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult> {
    const id = `${policy.name}:${bucketKey}`;
    const result = takeToken(policy, this.buckets.get(id)?.state, nowMs);
    this.buckets.set(id, { state: result.state, windowMs: windowSeconds(policy) * 1000 });
    this.sweep(nowMs);
    return result;
  }

  async peek(bucketKey: string, policy: BucketPolicy, nowMs: number): Promise<TakeResult> {
    return takeToken(policy, this.buckets.get(`${policy.name}:${bucketKey}`)?.state, nowMs);
  }

  // A bucket idle for a whole window of its own policy is full again and carries no information:
  // drop it, so memory is bounded by the keys active in their last window, not by every key ever
  // seen. Each bucket keeps its own window: a policy of a day (SMS replies) must not keep every
  // API and link bucket for a day.
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    for (const [id, b] of this.buckets) if (nowMs - b.state.updatedAtMs > b.windowMs) this.buckets.delete(id);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
