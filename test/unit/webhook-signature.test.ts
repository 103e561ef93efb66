import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { SIGNATURE_HEADER, computeSignature, generateWebhookSecret, signatureHeader } from '../../src/webhooks/signature.ts';
import { WebhookSignatureError, standardWebhookKey, verifyWebhook } from '../../src/webhooks/verify.ts';
import type { WebhookErrorCode } from '../../src/webhooks/verify.ts';

const NOW = 1_700_000_000;
const SECRET = 'whsec_test_secret';
const OTHER = 'whsec_rotated_secret';
const event = {
  id: 'evt_123',
  object: 'event',
  type: 'ticket.ready',
  created_at: '2023-11-14T22:13:20Z',
  livemode: false,
  api_version: 'v1',
  branch: 'br_1',
  data: { object: { id: 'tkt_1' } },
};
const BODY = JSON.stringify(event);

function rejects(code: WebhookErrorCode, fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof WebhookSignatureError, `expected WebhookSignatureError, got ${String(err)}`);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'WebhookSignatureError');
    assert.equal(err.code, code);
    return true;
  });
}

test('header name is Service-Signature', () => {
  assert.equal(SIGNATURE_HEADER, 'Service-Signature');
});

// biome-ignore lint/suspicious/noTemplateCurlyInString: the test's name quotes the signed string's template, `${t}.${body}`, as written
test('known-answer vector pins the signed string `${t}.${body}` and the whsec_ key', () => {
  const body = '{"id":"evt_123","object":"event","type":"ticket.ready"}';
  const independent = createHmac('sha256', Buffer.from('whsec_test_secret', 'utf8')).update(`1700000000.${body}`).digest('hex');
  // Also computed outside Node (openssl dgst -sha256 -hmac), so the vector survives refactors.
  assert.equal(independent, '1c1fb2874f880a8f382e2bf94cf508dcc3dd3aa0cae6491cb9a037887d8b989e');
  assert.equal(computeSignature('whsec_test_secret', 1700000000, body), independent);
  assert.equal(signatureHeader(['whsec_test_secret'], 1700000000, body), `t=1700000000,v1=${independent}`);
});

test('sign then verify round trip returns the parsed event', () => {
  const header = signatureHeader([SECRET], NOW, BODY);
  assert.deepEqual(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }), event);
});

test('default clock is used when nowSeconds is omitted', () => {
  const t = Math.floor(Date.now() / 1000);
  assert.equal(verifyWebhook(BODY, signatureHeader([SECRET], t, BODY), SECRET).id, 'evt_123');
});

test('rotation header carries one v1 per secret and each secret verifies on its own', () => {
  const header = signatureHeader([SECRET, OTHER], NOW, BODY);
  assert.match(header, /^t=1700000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  assert.equal(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }).id, 'evt_123');
  assert.equal(verifyWebhook(BODY, header, OTHER, { nowSeconds: NOW }).id, 'evt_123');
  rejects('signature_mismatch', () => verifyWebhook(BODY, header, 'whsec_third', { nowSeconds: NOW }));
});

test('tampered body and wrong secret are signature mismatches', () => {
  const header = signatureHeader([SECRET], NOW, BODY);
  rejects('signature_mismatch', () => verifyWebhook(BODY.replace('evt_123', 'evt_124'), header, SECRET, { nowSeconds: NOW }));
  rejects('signature_mismatch', () => verifyWebhook(BODY, header, 'whsec_wrong', { nowSeconds: NOW }));
});

test('a signature for another timestamp does not verify when t is swapped', () => {
  const v1 = computeSignature(SECRET, NOW - 10, BODY);
  rejects('signature_mismatch', () => verifyWebhook(BODY, `t=${NOW},v1=${v1}`, SECRET, { nowSeconds: NOW }));
});

test('timestamps more than 300 s away either way are rejected, 300 s is accepted', () => {
  const at = (t: number) => signatureHeader([SECRET], t, BODY);
  assert.equal(verifyWebhook(BODY, at(NOW - 300), SECRET, { nowSeconds: NOW }).id, 'evt_123');
  assert.equal(verifyWebhook(BODY, at(NOW + 300), SECRET, { nowSeconds: NOW }).id, 'evt_123');
  rejects('timestamp_out_of_tolerance', () => verifyWebhook(BODY, at(NOW - 301), SECRET, { nowSeconds: NOW }));
  rejects('timestamp_out_of_tolerance', () => verifyWebhook(BODY, at(NOW + 301), SECRET, { nowSeconds: NOW }));
});

test('custom tolerance is honoured', () => {
  const header = signatureHeader([SECRET], NOW - 60, BODY);
  rejects('timestamp_out_of_tolerance', () => verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW, toleranceSeconds: 30 }));
  const old = signatureHeader([SECRET], NOW - 900, BODY);
  assert.equal(verifyWebhook(BODY, old, SECRET, { nowSeconds: NOW, toleranceSeconds: 900 }).id, 'evt_123');
  assert.throws(() => verifyWebhook(BODY, old, SECRET, { nowSeconds: NOW, toleranceSeconds: -1 }), RangeError);
});

test('unknown schemes are ignored and whitespace around commas is tolerated', () => {
  const v1 = computeSignature(SECRET, NOW, BODY);
  const header = ` v0=deadbeef , t=${NOW} ,v2=${'ab'.repeat(32)},  v1=${v1} ,`;
  assert.equal(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }).id, 'evt_123');
});

test('missing header in every shape', () => {
  for (const header of [undefined, null, '', '   ', [] as string[]]) {
    rejects('missing_header', () => verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }));
  }
});

test('malformed headers: no t, non-integer t, duplicate t, items without =', () => {
  const v1 = computeSignature(SECRET, NOW, BODY);
  for (const header of [
    `v1=${v1}`,
    `t=abc,v1=${v1}`,
    `t=1.5,v1=${v1}`,
    `t=-5,v1=${v1}`,
    `t=,v1=${v1}`,
    `t=${NOW},t=${NOW},v1=${v1}`,
    'garbage',
    `t=${NOW},=x,v1=${v1}`,
  ]) {
    rejects('malformed_header', () => verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }));
  }
});

test('a header without any v1 has no signatures, even with other schemes', () => {
  rejects('no_signatures', () => verifyWebhook(BODY, `t=${NOW}`, SECRET, { nowSeconds: NOW }));
  rejects('no_signatures', () => verifyWebhook(BODY, `t=${NOW},v0=abc`, SECRET, { nowSeconds: NOW }));
});

test('short, long, empty or non-hex v1 values are mismatches, never another error', () => {
  const v1 = computeSignature(SECRET, NOW, BODY);
  for (const bad of ['', 'abc', v1.slice(0, 63), `${v1}00`, `${v1.slice(0, 62)}zz`, 'g'.repeat(64)]) {
    rejects('signature_mismatch', () => verifyWebhook(BODY, `t=${NOW},v1=${bad}`, SECRET, { nowSeconds: NOW }));
  }
  // A bad candidate next to a good one does not spoil the good one.
  assert.equal(verifyWebhook(BODY, `t=${NOW},v1=zz,v1=${v1}`, SECRET, { nowSeconds: NOW }).id, 'evt_123');
});

test('header given as an array (one element, or split parts)', () => {
  const header = signatureHeader([SECRET, OTHER], NOW, BODY);
  assert.equal(verifyWebhook(BODY, [header], SECRET, { nowSeconds: NOW }).id, 'evt_123');
  const [t, ...v1s] = header.split(',');
  assert.equal(verifyWebhook(BODY, [t ?? '', v1s.join(',')], OTHER, { nowSeconds: NOW }).id, 'evt_123');
});

test('Buffer and Uint8Array bodies verify against the exact bytes received', () => {
  // Pretty-printed, non-ASCII body: re-serializing the parsed object would change its bytes.
  const raw = JSON.stringify({ ...event, data: { note: 'café ☕' } }, null, 2);
  const header = signatureHeader([SECRET], NOW, raw);
  const buf = Buffer.from(raw, 'utf8');
  assert.deepEqual(verifyWebhook(buf, header, SECRET, { nowSeconds: NOW }).data, { note: 'café ☕' });
  const padded = new Uint8Array(buf.length + 8);
  padded.set(buf, 4);
  const view = padded.subarray(4, 4 + buf.length);
  assert.equal(verifyWebhook(view, header, SECRET, { nowSeconds: NOW }).id, 'evt_123');
  rejects('signature_mismatch', () => verifyWebhook(Buffer.from(JSON.stringify(JSON.parse(raw))), header, SECRET, { nowSeconds: NOW }));
});

test('a parsed object instead of the raw body fails the check; a missing secret is a config bug', () => {
  const header = signatureHeader([SECRET], NOW, BODY);
  rejects('invalid_payload', () => verifyWebhook(event as unknown as string, header, SECRET, { nowSeconds: NOW }));
  // Express gives `{}` for a bodiless request of another Content-Type: still a 400, not a 500.
  rejects('invalid_payload', () => verifyWebhook({} as unknown as string, undefined, SECRET, { nowSeconds: NOW }));
  assert.throws(() => verifyWebhook(BODY, header, '', { nowSeconds: NOW }), TypeError);
});

test('correctly signed bodies that are not event objects are invalid payloads', () => {
  for (const body of ['not json', '[1,2]', 'null', '"evt"', '{"id":"evt_1"}', '{"type":"ticket.ready"}', '{"id":1,"type":"x"}']) {
    rejects('invalid_payload', () => verifyWebhook(body, signatureHeader([SECRET], NOW, body), SECRET, { nowSeconds: NOW }));
  }
  const invalidUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
  const header = `t=${NOW},v1=${createHmac('sha256', SECRET).update(`${NOW}.`).update(invalidUtf8).digest('hex')}`;
  rejects('invalid_payload', () => verifyWebhook(invalidUtf8, header, SECRET, { nowSeconds: NOW }));
});

test('signing refuses inputs no receiver could verify', () => {
  assert.throws(() => signatureHeader([], NOW, BODY), TypeError);
  assert.throws(() => computeSignature(SECRET, 1.5, BODY), RangeError);
  assert.throws(() => computeSignature('', NOW, BODY), TypeError);
});

test('generated secrets are whsec_ + 44 letters and digits: canonical base64 of a 33-byte key', () => {
  const a = generateWebhookSecret();
  const b = generateWebhookSecret();
  assert.match(a, /^whsec_[A-Za-z0-9]{44}$/);
  const encoded = a.slice('whsec_'.length);
  // Canonical: decoding and encoding again gives the same text, so strict decoders (Python's
  // b64decode, Go's StdEncoding) read the very key this service signs with.
  assert.equal(Buffer.from(encoded, 'base64').toString('base64'), encoded);
  assert.equal(standardWebhookKey(a).length, 33);
  assert.notEqual(a, b);
});
