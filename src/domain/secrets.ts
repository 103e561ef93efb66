// API keys and passwords. Keys carry 192 random bits after their prefix and are stored as SHA-256
// hashes; passwords are stretched with scrypt (memory-hard) and compared in constant time.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export function newApiKey(mode: 'live' | 'test'): string {
  return `rk_${mode}_${randomBytes(24).toString('base64url')}`;
}

// N=2^15, r=8: 32 MiB per hash, about 50–100 ms on these machines; deliberate for logins, and
// never on the API hot path (API keys do not use it).
const PARAMS = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

function scryptAsync(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: PARAMS.maxmem });
  return timingSafeEqual(expected, actual);
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
