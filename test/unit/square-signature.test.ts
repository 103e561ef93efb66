// Square's notification signature (domain/square-signature.ts) held against Square's own helper in
// its SDK (WebhooksHelper.verifySignature): what one signs the other accepts, and a change to the
// key, the URL or one byte of the body is refused by both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebhooksHelper } from 'square';
import { squareSignature, validSquareSignature } from '../../src/domain/square-signature.ts';

const KEY = 'asdf1234';
const URL_ = 'https://pickup.example.com/connectors/square/webhook';
const BODY = JSON.stringify({
  merchant_id: 'MLEFBHHSJGVHD',
  type: 'order.fulfillment.updated',
  event_id: 'ac3ac95b-f97d-458c-a6e6-18981597e05f',
  created_at: '2026-11-22T12:00:00Z',
  data: { type: 'order_fulfillment_updated', id: 'ORD1', object: { order_fulfillment_updated: { order_id: 'ORD1', state: 'OPEN' } } },
});

const squareSays = (body: string, signature: string, key = KEY, url = URL_): Promise<boolean> =>
  WebhooksHelper.verifySignature({ requestBody: body, signatureHeader: signature, signatureKey: key, notificationUrl: url });

test("Square's helper accepts what readybell computes, and readybell accepts what it accepts", async () => {
  const signature = squareSignature(KEY, URL_, BODY);
  assert.equal(await squareSays(BODY, signature), true);
  assert.equal(validSquareSignature(KEY, URL_, BODY, signature), true);
  // Non-ASCII bodies are signed over their UTF-8 bytes by both.
  const cafe = BODY.replace('OPEN', 'Café ☕');
  assert.equal(await squareSays(cafe, squareSignature(KEY, URL_, cafe)), true);
});

test('another key, URL or body byte is refused by both; so is a missing or empty signature', async () => {
  const signature = squareSignature(KEY, URL_, BODY);
  const cases: Array<[string, string, string, string]> = [
    ['key', 'asdf1235', URL_, BODY],
    ['url', KEY, `${URL_}/`, BODY],
    ['body', KEY, URL_, BODY.replace('ORD1', 'ORD2')],
  ];
  for (const [what, key, url, body] of cases) {
    assert.equal(await squareSays(body, signature, key, url), false, what);
    assert.equal(validSquareSignature(key, url, body, signature), false, what);
  }
  assert.equal(validSquareSignature(KEY, URL_, BODY, undefined), false);
  assert.equal(validSquareSignature(KEY, URL_, BODY, ''), false);
  assert.equal(validSquareSignature('', URL_, BODY, squareSignature('', URL_, BODY)), false, 'no key configured: nothing verifies');
});
