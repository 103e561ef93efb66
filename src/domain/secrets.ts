// API keys and one-time passwords. Keys carry 192 random bits after their prefix and are stored as
// SHA-256 hashes; passwords are hashed in password-hash.ts.
import { randomBytes } from 'node:crypto';

export function newApiKey(mode: 'live' | 'test'): string {
  return `rk_${mode}_${randomBytes(24).toString('base64url')}`;
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
