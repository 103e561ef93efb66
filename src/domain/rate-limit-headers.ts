import type { BucketPolicy, TakeResult } from './token-bucket.ts';
import { windowSeconds } from './token-bucket.ts';

// Policy names are Structured Field Strings (RFC 9651 §3.3.3): printable ASCII, with `"` and `\`
// escaped. Names come from our own config, so a bad one is a programming error worth a throw.
function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw new RangeError(`rate limit policy name must be printable ASCII: ${JSON.stringify(value)}`);
  }
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

// Structured Field Integers cannot carry fractions or negatives.
function sfInteger(value: number): number {
  return Math.max(0, Math.floor(value));
}

/** `"writes";q=120;w=120, "reads";q=600;w=60` */
export function rateLimitPolicyField(policies: BucketPolicy[]): string {
  return policies.map((p) => `${sfString(p.name)};q=${sfInteger(p.capacity)};w=${windowSeconds(p)}`).join(', ');
}

/** `"writes";r=87;t=1`; `t` is left out when the bucket is full, as PRODUCT.md §8 requires. */
export function rateLimitField(policy: BucketPolicy, result: TakeResult): string {
  const base = `${sfString(policy.name)};r=${sfInteger(result.remaining)}`;
  return result.resetSeconds > 0 ? `${base};t=${Math.ceil(result.resetSeconds)}` : base;
}
