// Receivers install readybell and import `readybell/webhooks`: the package export must resolve to
// plain JavaScript (Node will not strip types under node_modules) and verify what we sign.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyStandardWebhook, verifyWebhook } from 'readybell/webhooks';
import { signedHeaders } from '../../src/webhooks/signature.ts';

test('readybell/webhooks verifies a signature made by the service', () => {
  const body = JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type: 'ticket.ready',
    created_at: '2026-11-22T12:00:00.000Z',
    livemode: false,
    api_version: 'v1',
    branch: 'br_1',
    data: {},
  });
  const now = 1_795_000_000;
  const headers = signedHeaders(['whsec_test'], 'evt_1', now, body);
  assert.equal(verifyWebhook(body, headers['Service-Signature'], 'whsec_test', { nowSeconds: now }).id, 'evt_1');
  assert.throws(() => verifyWebhook(body, headers['Service-Signature'], 'whsec_other', { nowSeconds: now }), {
    code: 'signature_mismatch',
  });
  assert.equal(verifyStandardWebhook(body, headers, 'whsec_test', { nowSeconds: now }).id, 'evt_1');
  assert.throws(() => verifyStandardWebhook(body, headers, 'whsec_other', { nowSeconds: now }), { code: 'signature_mismatch' });
});
