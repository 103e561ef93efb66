// The Standard Webhooks headers every delivery carries beside Service-Signature: the official
// `standardwebhooks` library and Stripe's `constructEvent` verify what the service signs, with one
// `whsec_` secret for both schemes, and readybell's own verifier checks both.
import { test, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { computeStandardSignature, generateWebhookSecret, signedHeaders, standardSignatureHeader } from '../../src/webhooks/signature.ts';
import { WebhookSignatureError, verifyStandardWebhook, verifyWebhook } from '../../src/webhooks/verify.ts';
import type { WebhookErrorCode } from '../../src/webhooks/verify.ts';

const NOW = 1_795_348_990;
const event = {
  id: 'evt_01m81j18g0aaaaaaaaaaaaaaaa',
  object: 'event',
  type: 'ticket.ready',
  created_at: '2026-11-22T12:03:10.512Z',
  livemode: false,
  api_version: 'v1',
  branch: 'br_1',
  data: { note: 'café ☕' },
};
const BODY = JSON.stringify(event);
const stripe = new Stripe('sk_test_unused');

afterEach(() => mock.timers.reset());

/** The Standard Webhooks library reads the clock itself: put it where the delivery was signed. */
function atSigningTime(): void {
  mock.timers.enable({ apis: ['Date'], now: NOW * 1000 });
}

function rejects(code: WebhookErrorCode, fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => err instanceof WebhookSignatureError && err.code === code);
}

test("the specification's published test vector: same signature, and it verifies", () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = '{"test": 2432232314}';
  const v1 = computeStandardSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body);
  assert.equal(v1, 'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  const headers = { 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': `v1,${v1}` };
  // The signature matches (else signature_mismatch); the vector's body is simply not an event.
  assert.throws(() => verifyStandardWebhook(body, headers, secret, { nowSeconds: 1614265330 }), { code: 'invalid_payload' });
  assert.throws(() => verifyStandardWebhook(body, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSx', { nowSeconds: 1614265330 }), {
    code: 'signature_mismatch',
  });
});

test('a delivery carries both schemes, and both official libraries verify it with the same secret', () => {
  const secret = generateWebhookSecret();
  const headers = signedHeaders([secret], event.id, NOW, BODY);
  assert.deepEqual(Object.keys(headers).sort(), ['Service-Signature', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
  assert.equal(headers['webhook-id'], event.id);
  assert.equal(headers['webhook-timestamp'], String(NOW));
  assert.match(headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]{43}=$/);

  atSigningTime();
  assert.deepEqual(new Webhook(secret).verify(BODY, headers), event);
  assert.deepEqual(new Webhook(secret).verify(Buffer.from(BODY), headers), event);
  assert.deepEqual(stripe.webhooks.constructEvent(BODY, headers['Service-Signature']!, secret), event);
  assert.deepEqual(verifyStandardWebhook(BODY, headers, secret, { nowSeconds: NOW }), event);
  assert.deepEqual(verifyWebhook(BODY, headers['Service-Signature'], secret, { nowSeconds: NOW }), event);

  const other = generateWebhookSecret();
  assert.throws(() => new Webhook(other).verify(BODY, headers), /No matching signature/);
  assert.throws(() => stripe.webhooks.constructEvent(BODY, headers['Service-Signature']!, other), /No signatures found/);
  assert.throws(() => new Webhook(secret).verify(BODY.replace('café', 'cafe'), headers), /No matching signature/);
  assert.throws(() => new Webhook(secret).verify(BODY, { ...headers, 'webhook-id': 'evt_other' }), /No matching signature/);
});

test('during a rotation webhook-signature has one space-separated entry per secret, each verifying alone', () => {
  const fresh = generateWebhookSecret();
  const old = generateWebhookSecret();
  const headers = signedHeaders([fresh, old], event.id, NOW, BODY);
  const entries = headers['webhook-signature']!.split(' ');
  assert.equal(entries.length, 2);
  atSigningTime();
  for (const secret of [fresh, old]) {
    assert.equal((new Webhook(secret).verify(BODY, headers) as { id: string }).id, event.id);
    assert.equal(stripe.webhooks.constructEvent(BODY, headers['Service-Signature']!, secret).id, event.id);
  }
  const verifiedBy = (entry: string) =>
    [fresh, old].filter((s) => {
      try {
        verifyStandardWebhook(BODY, { ...headers, 'webhook-signature': entry }, s, { nowSeconds: NOW });
        return true;
      } catch {
        return false;
      }
    });
  assert.deepEqual(entries.map(verifiedBy), [[fresh], [old]]);
});

test('secrets issued before (43 characters, base64url or letters and digits) keep verifying both schemes', () => {
  for (const secret of ['whsec_3q2-7w_Zk9Xb0aYtLmN1pQrS2uVwX4yZ5A6B7C8D9E0', 'whsec_3q2Z7wZk9Xb0aYtLmN1pQrS2uVwX4yZ5A6B7C8D9E0']) {
    const headers = signedHeaders([secret], event.id, NOW, BODY);
    assert.equal(verifyWebhook(BODY, headers['Service-Signature'], secret, { nowSeconds: NOW }).id, event.id);
    assert.equal(verifyStandardWebhook(BODY, headers, secret, { nowSeconds: NOW }).id, event.id);
    atSigningTime();
    assert.equal(stripe.webhooks.constructEvent(BODY, headers['Service-Signature']!, secret).id, event.id);
    // The JavaScript library decodes a missing `=` leniently; the url alphabet it does not know.
    if (!/[-_]/.test(secret.slice(6))) assert.equal((new Webhook(secret).verify(BODY, headers) as { id: string }).id, event.id);
    mock.timers.reset();
  }
});

test('verifyStandardWebhook takes Node, plain (any case) and Fetch headers', () => {
  const secret = generateWebhookSecret();
  const h = signedHeaders([secret], event.id, NOW, BODY);
  const opts = { nowSeconds: NOW };
  assert.equal(verifyStandardWebhook(BODY, new Headers(h), secret, opts).id, event.id);
  assert.equal(
    verifyStandardWebhook(
      BODY,
      { 'Webhook-Id': h['webhook-id'], 'WEBHOOK-TIMESTAMP': h['webhook-timestamp'], 'webhook-signature': [h['webhook-signature']!] },
      secret,
      opts,
    ).id,
    event.id,
  );
  assert.equal(verifyStandardWebhook(Buffer.from(BODY), h, secret, opts).id, event.id);
});

test('verifyStandardWebhook refuses what does not verify, each with its code', () => {
  const secret = generateWebhookSecret();
  const h = signedHeaders([secret], event.id, NOW, BODY);
  const opts = { nowSeconds: NOW };
  const v =
    (headers: Record<string, string>, body = BODY, s = secret, o = opts) =>
    () =>
      verifyStandardWebhook(body, headers, s, o);
  for (const missing of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const { [missing]: _, ...rest } = h;
    rejects('missing_header', v(rest));
    rejects('missing_header', v({ ...h, [missing]: ' ' }));
  }
  for (const t of ['abc', '1.5', '-5', '17953489901234567']) rejects('malformed_header', v({ ...h, 'webhook-timestamp': t }));
  rejects('missing_header', () => verifyStandardWebhook(BODY, undefined, secret, opts));
  rejects('missing_header', () => verifyStandardWebhook(BODY, null, secret, opts));
  rejects('no_signatures', v({ ...h, 'webhook-signature': 'v1a,abc v2,def' }));
  rejects('timestamp_out_of_tolerance', v(h, BODY, secret, { nowSeconds: NOW + 301 }));
  rejects('timestamp_out_of_tolerance', v(h, BODY, secret, { nowSeconds: NOW - 301 }));
  assert.equal(v(h, BODY, secret, { nowSeconds: NOW + 300 })().id, event.id);
  rejects('signature_mismatch', v(h, BODY, generateWebhookSecret()));
  rejects('signature_mismatch', v(h, BODY.replace('ready', 'reddy')));
  rejects('signature_mismatch', v({ ...h, 'webhook-id': 'evt_other' }));
  // A signature for another timestamp does not verify when the timestamp is swapped.
  rejects('signature_mismatch', v({ ...h, 'webhook-timestamp': String(NOW - 1) }, BODY, secret, opts));
  const good = h['webhook-signature']!;
  for (const bad of ['v1,', 'v1,abc', `v1,${good.slice(3, -2)}`, `v1,${'!'.repeat(43)}=`, good.replace('v1,', 'v1a,')]) {
    rejects(bad.startsWith('v1a') ? 'no_signatures' : 'signature_mismatch', v({ ...h, 'webhook-signature': bad }));
  }
  // A bad entry next to a good one does not spoil the good one; extra spaces are tolerated.
  assert.equal(v({ ...h, 'webhook-signature': `  v1,zz  v1a,xyz ${good} ` })().id, event.id);
  rejects('invalid_payload', () => verifyStandardWebhook(event as unknown as string, h, secret, opts));
  assert.throws(() => verifyStandardWebhook(BODY, h, '', opts), TypeError);
  assert.throws(() => verifyStandardWebhook(BODY, h, 'whsec_!!', opts), TypeError);
});

test('signing refuses an id the specification forbids, and an empty list of secrets', () => {
  const secret = generateWebhookSecret();
  assert.throws(() => computeStandardSignature(secret, 'evt.1', NOW, BODY), TypeError);
  assert.throws(() => computeStandardSignature(secret, '', NOW, BODY), TypeError);
  assert.throws(() => standardSignatureHeader([], event.id, NOW, BODY), TypeError);
  assert.throws(() => computeStandardSignature(secret, event.id, 1.5, BODY), RangeError);
});
