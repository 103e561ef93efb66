import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rateLimitField, rateLimitPolicyField } from '../../src/domain/rate-limit-headers.ts';
import { takeToken } from '../../src/domain/token-bucket.ts';
import type { BucketPolicy } from '../../src/domain/token-bucket.ts';

const writes: BucketPolicy = { name: 'writes', capacity: 120, refillPerSecond: 1 };
const reads: BucketPolicy = { name: 'reads', capacity: 600, refillPerSecond: 10 };
const T0 = 1_700_000_000_000;

describe('rateLimitPolicyField', () => {
  it('lists both policies exactly as PRODUCT.md §8 shows', () => {
    assert.equal(rateLimitPolicyField([writes, reads]), '"writes";q=120;w=120, "reads";q=600;w=60');
  });

  it('escapes policy names as structured field strings', () => {
    const odd: BucketPolicy = { name: 'a"b\\c', capacity: 5, refillPerSecond: 1 };
    assert.equal(rateLimitPolicyField([odd]), '"a\\"b\\\\c";q=5;w=5');
  });

  it('refuses names a structured field string cannot carry', () => {
    assert.throws(() => rateLimitPolicyField([{ name: 'é', capacity: 1, refillPerSecond: 1 }]), RangeError);
  });
});

describe('rateLimitField', () => {
  it('gives remaining whole tokens and seconds until the next one', () => {
    const result = takeToken(writes, { tokens: 88, updatedAtMs: T0 }, T0);
    assert.equal(rateLimitField(writes, result), '"writes";r=87;t=1');
  });

  it('leaves t out when the bucket is full', () => {
    const result = takeToken(reads, undefined, T0, 0);
    assert.equal(rateLimitField(reads, result), '"reads";r=600');
  });

  it('reports r=0 with t for a denied request', () => {
    const result = takeToken(writes, { tokens: 0, updatedAtMs: T0 }, T0);
    assert.equal(result.allowed, false);
    assert.equal(rateLimitField(writes, result), '"writes";r=0;t=1');
  });
});
