import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_AUTOMATIC_ATTEMPTS, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelayMs } from '../../src/webhooks/retry-schedule.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

test('the schedule of PRODUCT.md: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then the delivery fails', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, null, 0.5)),
    [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H],
  );
  assert.equal(retryDelayMs(8, null, 0.5), null);
  assert.equal(retryDelayMs(9, null), null);
  assert.equal(MAX_AUTOMATIC_ATTEMPTS, 8);
});

test('jitter stays within ±10 %', () => {
  assert.equal(retryDelayMs(1, null, 0), 4500);
  assert.equal(retryDelayMs(1, null, 0.999999), 5500);
  for (let i = 0; i < 1000; i++) {
    const d = retryDelayMs(3, null)!;
    assert.ok(d >= 27 * M && d <= 33 * M, String(d));
  }
});

test('Retry-After wins only when it asks for longer, and is capped at 24 h', () => {
  assert.equal(retryDelayMs(1, 120 * S, 0.5), 120 * S);
  assert.equal(retryDelayMs(2, 60 * S, 0.5), 5 * M);
  assert.equal(retryDelayMs(1, 7 * 24 * H, 0.5), MAX_RETRY_AFTER_MS);
  assert.equal(retryDelayMs(8, 60 * S), null, 'a Retry-After does not add attempts');
});

test('Retry-After is read as seconds or an HTTP date; anything else is ignored', () => {
  const now = Date.parse('2026-11-22T12:00:00.000Z');
  assert.equal(parseRetryAfter('120', now), 120 * S);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 13:00:00 GMT', now), H);
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter(['30', '60'], now), 30 * S);
  for (const bad of [undefined, '', '-5', '1.5', 'soon', '2026-11-22T13:00:00Z', 'Sun, 99 Nov 2026 13:00:00 GMT']) {
    assert.equal(parseRetryAfter(bad, now), null, String(bad));
  }
});

test('attempt numbers start at 1', () => {
  assert.throws(() => retryDelayMs(0, null), RangeError);
  assert.throws(() => retryDelayMs(1.5, null), RangeError);
});
