// Prefixed, time-sortable identifiers: 10 chars of millisecond time in Crockford base32, then 16
// random chars (80 bits). Lexical order is creation order, so ids double as keyset cursors.
import { randomBytes, randomInt } from 'node:crypto';
import { pooledRandom } from './random-pool.ts';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = {
  account: 'acct',
  branch: 'br',
  key: 'key',
  user: 'usr',
  ticket: 'tk',
  event: 'evt',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  display: 'dsp',
  announcement: 'ann',
  ring: 'rng',
  job: 'job',
  session: 'ses',
  pushSubscription: 'psub',
  emailLink: 'eml',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

let lastMs = 0;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

// Within one millisecond the random part is incremented, so ids made by one process stay strictly
// ordered even at tens of thousands per second (ULID's monotonic rule).
function nextRandom(ms: number): number[] {
  if (ms === lastMs && lastRandom.length === 16) {
    const r = lastRandom.slice();
    for (let i = 15; i >= 0; i--) {
      if (r[i]! < 31) {
        r[i]!++;
        lastRandom = r;
        return r;
      }
      r[i] = 0;
    }
  }
  const bytes = pooledRandom(16);
  lastMs = ms;
  lastRandom = Array.from(bytes, (b) => b & 31);
  // leave headroom so increments within a millisecond never wrap
  lastRandom[0] = lastRandom[0]! & 15;
  return lastRandom;
}

export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  const r = nextRandom(nowMs);
  let rand = '';
  for (const v of r) rand += ALPHABET[v];
  return `${ID_PREFIXES[kind]}_${encodeTime(nowMs)}${rand}`;
}

/** The millisecond time an id was made at (its first 10 characters after the prefix). */
export function idTime(id: string): number {
  const time = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  let ms = 0;
  for (const c of time) ms = ms * 32 + ALPHABET.indexOf(c);
  return ms;
}

const TIME_LIMIT = 32 ** 10;

/**
 * The smallest id of `kind` that newId can give at `ms` or later: ids made before `ms` sort below
 * it and the others at or above it, so a range of creation times is a range of ids. Times
 * outside what the 10 characters can hold are clamped (nothing is made there).
 */
export function firstIdAt(kind: IdKind, ms: number): string {
  const t = Math.min(Math.max(Math.ceil(ms), 0), TIME_LIMIT - 1);
  return `${ID_PREFIXES[kind]}_${encodeTime(t)}${'0'.repeat(16)}`;
}

const ID_SHAPE = /^[0-9a-hjkmnp-tv-z]{26}$/;

export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ID_SHAPE.test(value.slice(prefix.length));
}

/** Random URL-safe token of `bytes` random bytes (session cookies: no person copies them). */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Secrets people copy (API keys, webhook secrets, board links): letters and digits only, so a
 * double-click in a terminal or browser selects the whole of it, as it does not across `-`.
 * randomInt draws each character without modulo bias.
 */
export function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}
