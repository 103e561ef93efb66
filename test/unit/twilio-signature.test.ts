// readybell's X-Twilio-Signature check, held against the `twilio` package's own helper: the same
// signature for the same URL and parameters, and the same verdict on tampered requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getExpectedTwilioSignature, validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import { formParams, signedUrlCandidates, twilioSignature, validTwilioSignature } from '../../src/domain/twilio-signature.ts';

const TOKEN = '12345';
// Twilio's documented example (twilio.com/docs/usage/security).
const DOC_URL = 'https://example.com/myapp.php?foo=1&bar=2';
const DOC_PARAMS = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };

const asMap = (o: Record<string, string | string[]>) => new Map(Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));

test("Twilio's documented example", () => {
  const expected = getExpectedTwilioSignature(TOKEN, DOC_URL, DOC_PARAMS);
  assert.equal(twilioSignature(TOKEN, DOC_URL, asMap(DOC_PARAMS)), expected);
  assert.ok(validTwilioSignature(TOKEN, expected, DOC_URL, asMap(DOC_PARAMS)));
});

test('the same signature as the twilio helper for bodies of every shape', () => {
  const bodies: Array<Record<string, string | string[]>> = [
    {},
    { Body: 'On my way 🚶 — j’arrive', From: '+33612345678', MessageSid: 'SM0123' },
    { Body: 'a&b=c%d+e f', Zeta: '1', alpha: '2', Alpha: '3', _x: '' },
    { MediaUrl: ['https://b.example/2', 'https://a.example/1', 'https://a.example/1'], Body: 'x' },
  ];
  const urls = [
    'https://rb.example.com/sms/inbound',
    'https://rb.example.com:8443/sms/status/rng_01?x=%27y%27',
    'http://localhost:3000/sms/inbound',
  ];
  for (const url of urls) {
    for (const body of bodies) {
      assert.equal(
        twilioSignature(TOKEN, url, asMap(body)),
        getExpectedTwilioSignature(TOKEN, url, body),
        `${url} ${JSON.stringify(body)}`,
      );
    }
  }
});

test('a form body read with every value of a repeated name, as signed', () => {
  const params = formParams('Body=hi+there&MediaUrl=b&MediaUrl=a&Empty=&Plus=%2B1');
  assert.deepEqual(
    [...params],
    [
      ['Body', ['hi there']],
      ['MediaUrl', ['b', 'a']],
      ['Empty', ['']],
      ['Plus', ['+1']],
    ],
  );
  const url = 'https://rb.example.com/sms/inbound';
  const signature = getExpectedTwilioSignature(TOKEN, url, { Body: 'hi there', MediaUrl: ['b', 'a'], Empty: '', Plus: '+1' });
  assert.ok(validTwilioSignature(TOKEN, signature, url, params));
});

test('the URL as configured, with or without the default port, as the twilio helper accepts it', () => {
  const params = asMap(DOC_PARAMS);
  for (const [signedAs, receivedAs] of [
    ['https://rb.example.com/sms/inbound', 'https://rb.example.com:443/sms/inbound'],
    ['https://rb.example.com:443/sms/inbound', 'https://rb.example.com/sms/inbound'],
    ['http://rb.example.com/sms/inbound', 'http://rb.example.com:80/sms/inbound'],
  ] as const) {
    const signature = getExpectedTwilioSignature(TOKEN, signedAs, DOC_PARAMS);
    assert.equal(validateRequest(TOKEN, signature, receivedAs, DOC_PARAMS), true);
    assert.equal(validTwilioSignature(TOKEN, signature, receivedAs, params), true, `${signedAs} received as ${receivedAs}`);
  }
  assert.deepEqual(signedUrlCandidates('https://rb.example.com/a?b=1'), [
    'https://rb.example.com/a?b=1',
    'https://rb.example.com:443/a?b=1',
  ]);
  assert.deepEqual(signedUrlCandidates('http://localhost:3000/a'), ['http://localhost:3000/a', 'http://localhost/a']);
});

test('refused like the twilio helper refuses: no header, another token, another URL, a changed or added parameter', () => {
  const url = 'https://rb.example.com/sms/inbound';
  const body = { Body: '1', From: '+14155550123' };
  const good = getExpectedTwilioSignature(TOKEN, url, body);
  const cases: Array<[string | undefined, string, string, Record<string, string>]> = [
    [undefined, TOKEN, url, body],
    ['', TOKEN, url, body],
    [good, 'another-token', url, body],
    [good, TOKEN, 'https://rb.example.com/sms/inbound?x=1', body],
    [good, TOKEN, 'https://evil.example.com/sms/inbound', body],
    [good, TOKEN, url, { ...body, Body: '5' }],
    [good, TOKEN, url, { ...body, Extra: '' }],
    [good.slice(0, -2), TOKEN, url, body],
    [getExpectedTwilioSignature('another-token', url, body), TOKEN, url, body],
  ];
  for (const [header, token, at, params] of cases) {
    assert.equal(validateRequest(token, header ?? '', at, params), false);
    assert.equal(validTwilioSignature(token, header, at, asMap(params)), false, JSON.stringify([header, token, at, params]));
  }
  assert.equal(validTwilioSignature(TOKEN, good, url, asMap(body)), true);
  assert.equal(
    validTwilioSignature('', getExpectedTwilioSignature('', url, body), url, asMap(body)),
    false,
    'an empty token verifies nothing',
  );
});
