// A ring of a ticket that closed while the ring was open is recorded from its send records and
// confirmations (src/ring/recorded-outcome.ts): what reached the customer still counts, a send in
// flight keeps the ring open, and a dead sender's send is unknown, never "not reached".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outcomeFromRecords } from '../../src/ring/recorded-outcome.ts';

const STALE_MS = 30_000;
const NOW = 100_000;
const send = (
  channel: string,
  status: 'sending' | 'delivered' | 'undelivered' | 'unknown',
  claimedAt = NOW - 1000,
  detail: string | null = null,
) => ({ channel, status, claimedAt, detail });

test("what was delivered before the close is the ring's outcome", () => {
  const out = outcomeFromRecords(
    [send('push', 'undelivered', NOW, '410'), send('push', 'delivered', NOW, '201')],
    ['display'],
    NOW,
    STALE_MS,
  );
  assert.deepEqual(out.attempts, [
    { channel: 'push', delivered: true, detail: '201' },
    { channel: 'display', delivered: true },
  ]);
  assert.deepEqual([out.rang, out.channel_used, out.call_out_loud, out.complete, out.sending], [true, 'push', true, true, undefined]);
  const page = outcomeFromRecords([], ['page'], NOW, STALE_MS);
  assert.deepEqual([page.channel_used, page.complete], ['page', true]);
});

test('nothing sent and nothing confirmed: "none", complete', () => {
  const out = outcomeFromRecords([], [], NOW, STALE_MS);
  assert.deepEqual([out.rang, out.channel_used, out.complete, out.attempts], [false, 'none', true, []]);
  const refused = outcomeFromRecords([send('sms', 'undelivered', NOW, 'provider said no')], [], NOW, STALE_MS);
  assert.deepEqual(refused.attempts, [{ channel: 'sms', delivered: false, detail: 'provider said no' }]);
});

test('a send still in flight keeps the ring open; one whose sender died is unknown', () => {
  const flying = outcomeFromRecords([send('push', 'sending', NOW - STALE_MS)], [], NOW, STALE_MS);
  assert.deepEqual([flying.complete, flying.sending, flying.attempts], [false, true, []]);
  const dead = outcomeFromRecords([send('push', 'sending', NOW - STALE_MS - 1)], [], NOW, STALE_MS);
  assert.deepEqual([dead.complete, dead.channel_used, dead.attempts[0]?.delivered], [true, 'unknown', null]);
  const settledUnknown = outcomeFromRecords([send('sms', 'unknown')], ['page'], NOW, STALE_MS);
  assert.deepEqual([settledUnknown.channel_used, settledUnknown.rang], ['page', true], 'a confirmed page outranks an unknown SMS');
});
