// Signing side of webhook deliveries (PRODUCT.md §6). Every delivery carries two signatures made
// with the same `whsec_` secret: `Service-Signature` (Stripe's scheme, so `stripe.webhooks.
// constructEvent` verifies it) and the Standard Webhooks headers (so every official Standard
// Webhooks library does). Receivers verify with ./verify.ts, which must stay byte-for-byte
// compatible with what is produced here: the round-trip tests pin both. Decision: 0005.
import { createHmac, createSecretKey } from 'node:crypto';
import { randomAlphanumeric } from '../domain/ids.ts';
// The key derivation lives with the receiver's code, so both sides decode a secret one way.
import { standardWebhookKey } from './verify.ts';

export const SIGNATURE_HEADER = 'Service-Signature';

const SECRET_PREFIX = 'whsec_';

function assertTimestamp(timestampSeconds: number): void {
  // A fractional or negative `t` would be rejected as malformed by every receiver, so failing
  // here surfaces the bug at the sender instead of as a wave of 400s in delivery logs.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`webhook timestamp must be a non-negative integer of seconds, got ${timestampSeconds}`);
  }
}

function assertSecrets(secrets: readonly string[]): void {
  // A header with no signature can never verify; sending it would only look like a receiver bug.
  if (secrets.length === 0) throw new TypeError('at least one webhook secret is required to sign a delivery');
}

/**
 * Stripe's scheme: lowercase hex HMAC-SHA256 of `${t}.${rawBody}`. The key is the UTF-8 bytes of
 * the whole `whsec_…` string, prefix included, exactly as Stripe's libraries use their secrets.
 */
export function computeSignature(secret: string, timestampSeconds: number, rawBody: string): string {
  assertTimestamp(timestampSeconds);
  if (secret.length === 0) throw new TypeError('webhook secret must not be empty');
  // A string key is hashed as its UTF-8 bytes, exactly as Buffer.from(secret, 'utf8') would be,
  // but skips the key-object preparation a Buffer goes through: ~6 µs per signature instead of ~23.
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
}

/**
 * `t=<t>,v1=<hex>[,v1=<hex>…]`: one v1 per currently valid secret, so a receiver still holding
 * the old secret keeps verifying during a rotation overlap.
 */
export function signatureHeader(secrets: readonly string[], timestampSeconds: number, rawBody: string): string {
  assertSecrets(secrets);
  const parts = [`t=${timestampSeconds}`];
  for (const secret of secrets) parts.push(`v1=${computeSignature(secret, timestampSeconds, rawBody)}`);
  return parts.join(',');
}

/**
 * Standard Webhooks' `v1`: base64 HMAC-SHA256 of `${msgId}.${t}.${rawBody}`, keyed by the base64
 * decoding of what follows `whsec_` (standardWebhookKey). Secrets generated now are canonical
 * base64 for every decoder; older ones (43 characters, some base64url) decode leniently.
 */
export function computeStandardSignature(secret: string, msgId: string, timestampSeconds: number, rawBody: string): string {
  assertTimestamp(timestampSeconds);
  // The spec forbids `.` in the id: it would make two different (id, t) pairs sign the same bytes.
  if (!/^[^.\s]+$/.test(msgId)) throw new TypeError(`webhook-id must be non-empty without dots or spaces, got ${JSON.stringify(msgId)}`);
  // A key object made per signature costs about a third of what a Buffer key costs inside createHmac.
  return createHmac('sha256', createSecretKey(standardWebhookKey(secret)))
    .update(`${msgId}.${timestampSeconds}.${rawBody}`, 'utf8')
    .digest('base64');
}

/** `v1,<base64>[ v1,<base64>…]`: space-separated, one entry per currently valid secret. */
export function standardSignatureHeader(secrets: readonly string[], msgId: string, timestampSeconds: number, rawBody: string): string {
  assertSecrets(secrets);
  return secrets.map((secret) => `v1,${computeStandardSignature(secret, msgId, timestampSeconds, rawBody)}`).join(' ');
}

/**
 * Every signature header of one delivery of `rawBody` (an event envelope whose id is `eventId`):
 * what a webhook delivery sends and what `readybell listen` sends to a local receiver.
 */
export function signedHeaders(
  secrets: readonly string[],
  eventId: string,
  timestampSeconds: number,
  rawBody: string,
): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: signatureHeader(secrets, timestampSeconds, rawBody),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardSignatureHeader(secrets, eventId, timestampSeconds, rawBody),
  };
}

/**
 * `whsec_` + 44 letters and digits: 262 random bits, safe in env files, URLs and JSON, one word to
 * a double-click — and, 44 being a multiple of 4, also canonical base64 of a 33-byte key, so the
 * same string is a valid secret for Stripe's scheme (used as text) and Standard Webhooks (decoded).
 */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomAlphanumeric(44);
}
