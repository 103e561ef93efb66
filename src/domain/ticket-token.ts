// The customer link's secret: 130 random bits as 26 upper-case base32 characters, after 6
// characters of the creation time in seconds. Upper case lets the QR encoder use its alphanumeric
// mode for the token, which keeps the printed code at version 4 or lower for a typical public URL.
// The time prefix keeps the token index appending instead of writing at random places: with
// purely random tokens every create dirtied another page of that index (about 15 µs per create
// on the embedded store at 20,000 tickets, growing with the table). It reveals only when the
// ticket was made, which its page shows anyway; the secret is the random part.
import { pooledRandom } from './random-pool.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
// The same characters in byte order, so that prefixes sort like the times they encode.
const SORTED = '234567ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** 32 characters since the time prefix; the 26-character tokens of earlier tickets stay valid. */
export const TICKET_TOKEN_PATTERN = '^[A-Z2-7]{26}(?:[A-Z2-7]{6})?$';

export function ticketToken(nowMs: number = Date.now()): string {
  // 30 bits of seconds wrap every 34 years; only the index's locality depends on the order.
  let seconds = Math.floor(nowMs / 1000) % 2 ** 30;
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = SORTED[seconds & 31] + out;
    seconds = Math.floor(seconds / 32);
  }
  for (const b of pooledRandom(26)) out += ALPHABET[b & 31];
  return out;
}
