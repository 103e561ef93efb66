import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { takeToken, windowSeconds } from '../../src/domain/token-bucket.ts';
import type { BucketPolicy, BucketState } from '../../src/domain/token-bucket.ts';

const writes: BucketPolicy = { name: 'writes', capacity: 120, refillPerSecond: 1 };
const reads: BucketPolicy = { name: 'reads', capacity: 600, refillPerSecond: 10 };
const T0 = 1_700_000_000_000;

function drain(policy: BucketPolicy, count: number, nowMs: number): BucketState | undefined {
  let state: BucketState | undefined;
  for (let i = 0; i < count; i++) {
    const r = takeToken(policy, state, nowMs);
    assert.equal(r.allowed, true, `request ${i + 1} should be allowed`);
    state = r.state;
  }
  return state;
}

describe('takeToken', () => {
  it('treats a missing state as a full bucket', () => {
    const r = takeToken(writes, undefined, T0);
    assert.equal(r.allowed, true);
    assert.deepEqual(r.state, { tokens: 119, updatedAtMs: T0 });
    assert.equal(r.remaining, 119);
    assert.equal(r.resetSeconds, 1);
    assert.equal(r.retryAfterSeconds, 0);
  });

  it('allows exactly the burst, then denies', () => {
    for (const policy of [writes, reads]) {
      const state = drain(policy, policy.capacity, T0);
      const denied = takeToken(policy, state, T0);
      assert.equal(denied.allowed, false);
      assert.equal(denied.remaining, 0);
      assert.equal(denied.state.tokens, 0);
      assert.equal(denied.retryAfterSeconds, 1);
    }
  });

  it('refills at the policy rate and never above capacity', () => {
    const empty: BucketState = { tokens: 0, updatedAtMs: T0 };
    const after5s = takeToken(writes, empty, T0 + 5_000);
    assert.equal(after5s.allowed, true);
    assert.equal(after5s.remaining, 4);
    const afterAges = takeToken(writes, empty, T0 + 10_000_000);
    assert.equal(afterAges.state.tokens, 119);
  });

  it('accumulates fractional tokens', () => {
    const empty: BucketState = { tokens: 0, updatedAtMs: T0 };
    const r = takeToken(reads, empty, T0 + 150);
    assert.equal(r.allowed, true);
    assert.equal(r.state.tokens, 0.5);
    assert.equal(r.remaining, 0);
    // 0.5 left, 10/s: the next whole token is 50 ms away, reported as a whole second.
    assert.equal(r.resetSeconds, 1);

    const slow = takeToken(writes, empty, T0 + 400);
    assert.equal(slow.allowed, false);
    assert.equal(slow.state.tokens, 0.4);
    const later = takeToken(writes, slow.state, T0 + 1_000);
    assert.equal(later.allowed, true);
    assert.equal(later.state.tokens, 0);
  });

  it('does not lose tokens to floating point drift over many small steps', () => {
    let state: BucketState = { tokens: 0, updatedAtMs: T0 };
    for (let ms = 10; ms <= 100; ms += 10) {
      state = takeToken(reads, state, T0 + ms, 0).state;
    }
    assert.equal(takeToken(reads, state, T0 + 100).allowed, true);
  });

  it('adds nothing when the clock goes backwards and keeps the later timestamp', () => {
    const state: BucketState = { tokens: 3, updatedAtMs: T0 };
    const r = takeToken(writes, state, T0 - 60_000);
    assert.equal(r.allowed, true);
    assert.deepEqual(r.state, { tokens: 2, updatedAtMs: T0 });

    const empty = takeToken(writes, { tokens: 0, updatedAtMs: T0 }, T0 - 5_000);
    assert.equal(empty.allowed, false);
    assert.deepEqual(empty.state, { tokens: 0, updatedAtMs: T0 });
    // Time catching up must not count the backwards interval as earned.
    assert.equal(takeToken(writes, empty.state, T0 + 500).allowed, false);
  });

  it('never mints tokens from a corrupt stored state', () => {
    assert.equal(takeToken(writes, { tokens: Number.NaN, updatedAtMs: T0 }, T0).allowed, false);
    assert.equal(takeToken(writes, { tokens: -5, updatedAtMs: T0 }, T0).state.tokens, 0);
    assert.equal(takeToken(writes, { tokens: 10_000, updatedAtMs: T0 }, T0).state.tokens, 119);
  });

  it('reports retryAfter as the whole seconds until the cost is available', () => {
    const r = takeToken(writes, { tokens: 0.25, updatedAtMs: T0 }, T0);
    assert.equal(r.allowed, false);
    assert.equal(r.retryAfterSeconds, 1);
    assert.equal(r.resetSeconds, 1);
    const big = takeToken(writes, { tokens: 0.25, updatedAtMs: T0 }, T0, 5);
    assert.equal(big.retryAfterSeconds, 5); // 4.75 s rounded up
  });

  it('reports reset 0 only when the bucket is full', () => {
    assert.equal(takeToken(writes, undefined, T0, 0).resetSeconds, 0);
    assert.equal(takeToken(writes, { tokens: 87, updatedAtMs: T0 }, T0).resetSeconds, 1);
    assert.equal(takeToken(writes, { tokens: 87.5, updatedAtMs: T0 }, T0).resetSeconds, 1);
  });

  it('takes several tokens at once when cost > 1', () => {
    const r = takeToken(writes, { tokens: 5, updatedAtMs: T0 }, T0, 3);
    assert.equal(r.allowed, true);
    assert.equal(r.remaining, 2);
    const denied = takeToken(writes, r.state, T0, 3);
    assert.equal(denied.allowed, false);
    assert.equal(denied.state.tokens, 2);
    assert.equal(denied.retryAfterSeconds, 1);
    assert.equal(takeToken(writes, denied.state, T0 + 1_000, 3).allowed, true);
  });

  it('rejects a cost the bucket can never hold', () => {
    assert.throws(() => takeToken(writes, undefined, T0, 121), RangeError);
    assert.throws(() => takeToken(writes, undefined, T0, -1), RangeError);
    assert.throws(() => takeToken(writes, undefined, T0, Number.NaN), RangeError);
  });
});

describe('windowSeconds', () => {
  it('is capacity over refill rate, rounded up', () => {
    assert.equal(windowSeconds(writes), 120);
    assert.equal(windowSeconds(reads), 60);
    assert.equal(windowSeconds({ name: 'x', capacity: 10, refillPerSecond: 3 }), 4);
  });
});
