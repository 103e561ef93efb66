// Staff passwords at rest (decision 0014). New hashes are argon2id with OWASP's parameters
// (m=19 MiB, t=2, p=1: about 40 ms here, on libuv's thread pool) in the PHC string format other
// tools read. Hashes made earlier with scrypt (N=2^15, below OWASP's minimum) still verify, and
// `needsRehash` tells sign-in to replace them while it holds the plain password.
import { argon2, randomBytes, scrypt, timingSafeEqual, type Argon2Parameters } from 'node:crypto';

const ARGON2 = { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 } as const;
const CURRENT = `$argon2id$v=19$m=${ARGON2.memory},t=${ARGON2.passes},p=${ARGON2.parallelism}$`;

// PHC strings use standard base64 without padding. The bounds keep a damaged stored hash from
// asking for gigabytes or minutes of work.
const ARGON2_PHC = /^\$argon2id\$v=19\$m=(\d{4,6}),t=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{11,64})\$([A-Za-z0-9+/]{22,86})$/;
const SCRYPT_LEGACY = /^scrypt\$(\d{1,7})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{11,64})\$([A-Za-z0-9_-]{22,86})$/;

const b64 = (buf: Buffer): string => buf.toString('base64').replace(/=+$/, '');

function argon2id(password: string, salt: Buffer, params: Omit<Argon2Parameters, 'message' | 'nonce'>): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    argon2('argon2id', { message: password, nonce: salt, ...params }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function scryptLegacy(password: string, salt: Buffer, keylen: number, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { N, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `${CURRENT}${b64(salt)}$${b64(await argon2id(password, salt, ARGON2))}`;
}

/** Constant-time in the password: the digest comparison is timingSafeEqual over equal lengths. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  let expected: Buffer;
  let actual: Buffer;
  const a = ARGON2_PHC.exec(stored);
  const s = a === null ? SCRYPT_LEGACY.exec(stored) : null;
  try {
    if (a !== null) {
      expected = Buffer.from(a[5]!, 'base64');
      const [memory, passes, parallelism] = [Number(a[1]), Number(a[2]), Number(a[3])];
      if (memory > 262_144 || passes < 1 || parallelism < 1 || memory < 8 * parallelism) return false;
      actual = await argon2id(password, Buffer.from(a[4]!, 'base64'), { memory, passes, parallelism, tagLength: expected.length });
    } else if (s !== null) {
      expected = Buffer.from(s[5]!, 'base64url');
      actual = await scryptLegacy(password, Buffer.from(s[4]!, 'base64url'), expected.length, Number(s[1]), Number(s[2]), Number(s[3]));
    } else {
      return false;
    }
  } catch {
    // Parameters the library refuses (a damaged row): the password cannot be right.
    return false;
  }
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** True for a hash of an older scheme or other parameters: sign-in replaces it. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith(CURRENT);
}
