// API keys and one-time passwords. Keys are stored as SHA-256 hashes; passwords are hashed in
// password-hash.ts.
import { createHash, randomBytes } from 'node:crypto';
import { randomAlphanumeric } from './ids.ts';

/** What the store keeps of an API key: keys carry 190 random bits, so one SHA-256 needs no stretching. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * 32 letters and digits after the prefix: 190 random bits. Keys issued before carry 32
 * base64url characters (`-` and `_` included) and keep working: a key is looked up by its hash.
 */
export function newApiKey(mode: 'live' | 'test'): string {
  return `rk_${mode}_${randomAlphanumeric(32)}`;
}

/** A readable one-time password: 4 groups of 4 from an unambiguous alphabet (≈ 80 bits). */
export function newPassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(16);
  let out = '';
  for (let i = 0; i < 16; i++) {
    if (i > 0 && i % 4 === 0) out += '-';
    out += alphabet[bytes[i]! % alphabet.length];
  }
  return out;
}
