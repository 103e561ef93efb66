// Secrets people copy: letters and digits only, so a double-click in a terminal or browser
// selects all of it, with enough randomness and no character favoured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newApiKey } from '../../src/domain/secrets.ts';
import { generateWebhookSecret } from '../../src/webhooks/signature.ts';

/** Each of 62 equally likely characters. */
const ALPHANUMERIC_BITS = Math.log2(62);

function assertUniform(bodies: string[]): void {
  const counts = new Map<string, number>();
  for (const body of bodies) for (const c of body) counts.set(c, (counts.get(c) ?? 0) + 1);
  assert.equal(counts.size, 62, 'every letter and digit occurs');
  const expected = bodies.join('').length / 62;
  for (const [c, n] of counts) assert.ok(n > expected * 0.8 && n < expected * 1.2, `${c}: ${n} against ${expected.toFixed(0)}`);
}

test('API keys are rk_live_/rk_test_ and letters and digits carrying at least 160 random bits', () => {
  const keys = Array.from({ length: 2000 }, (_, i) => newApiKey(i % 2 === 0 ? 'live' : 'test'));
  for (const key of keys) {
    assert.match(key, /^rk_(live|test)_[A-Za-z0-9]+$/);
    assert.ok((key.length - 'rk_live_'.length) * ALPHANUMERIC_BITS >= 160, key);
  }
  assert.equal(new Set(keys).size, keys.length);
  assertUniform(keys.map((k) => k.slice('rk_live_'.length)));
});

test('webhook secrets are whsec_ and letters and digits carrying 256 random bits', () => {
  const secrets = Array.from({ length: 1000 }, () => generateWebhookSecret());
  for (const s of secrets) {
    assert.match(s, /^whsec_[A-Za-z0-9]+$/);
    assert.ok((s.length - 'whsec_'.length) * ALPHANUMERIC_BITS >= 256, s);
  }
  assertUniform(secrets.map((s) => s.slice('whsec_'.length)));
});
