// Random bytes for ids, tokens and request ids, drawn from a 4 KiB buffer refilled from the
// CSPRNG: one randomBytes call per value was a visible share of a create's CPU. The bytes are the
// same cryptographic randomness; a returned slice is never handed out twice.
import { randomBytes } from 'node:crypto';

let pool = Buffer.alloc(0);
let offset = 0;

export function pooledRandom(n: number): Buffer {
  if (offset + n > pool.length) {
    pool = randomBytes(Math.max(4096, n));
    offset = 0;
  }
  const out = pool.subarray(offset, offset + n);
  offset += n;
  return out;
}
