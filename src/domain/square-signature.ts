// Square's webhook signature (developer.squareup.com, "Verify and validate an event notification"):
// x-square-hmacsha256-signature is base64(HMAC-SHA256(signature key, notification URL + raw body)),
// the URL exactly as the subscription names it. Compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function squareSignature(signatureKey: string, notificationUrl: string, rawBody: string): string {
  return createHmac('sha256', signatureKey)
    .update(notificationUrl + rawBody, 'utf8')
    .digest('base64');
}

export function validSquareSignature(signatureKey: string, notificationUrl: string, rawBody: string, header: string | undefined): boolean {
  if (header === undefined || header === '' || signatureKey === '') return false;
  const expected = Buffer.from(squareSignature(signatureKey, notificationUrl, rawBody), 'utf8');
  const given = Buffer.from(header.trim(), 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
