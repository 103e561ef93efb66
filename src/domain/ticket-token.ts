// The customer link's secret: 130 random bits as 26 upper-case base32 characters. Upper case
// lets the QR encoder use its alphanumeric mode for the token, which keeps the printed code at
// version 4 or lower for a typical public URL.
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const TICKET_TOKEN_PATTERN = '^[A-Z2-7]{26}$';

export function ticketToken(): string {
  const bytes = randomBytes(26);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}
