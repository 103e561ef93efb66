// The ringer carrying out the policy with stand-in channels: order of stages, the deadline, and
// what counts as finished. The store is a stand-in too: the ringer only reads plan and settings.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelRinger } from '../../src/channels/channel-ringer.ts';
import type { Channel } from '../../src/channels/ringer.ts';
import type { ChannelAttempt, ChannelName, RingRequest } from '../../src/core/ring.ts';
import type { Db } from '../../src/core/db.ts';
import type { Ticket } from '../../src/core/ticket.ts';
import { EVERY_CHANNEL } from '../../src/domain/channel-choice.ts';

type Behaviour = 'deliver' | 'fail' | 'throw' | 'hang' | 'pending-at-abort' | 'answer-at-abort';

class Stub implements Channel {
  readonly name: ChannelName;
  readonly behaviour: Behaviour;
  calls = 0;
  constructor(name: ChannelName, behaviour: Behaviour) {
    this.name = name;
    this.behaviour = behaviour;
  }
  async ring(_r: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    this.calls++;
    const atAbort = (a: ChannelAttempt) =>
      new Promise<ChannelAttempt>((resolve) => signal.addEventListener('abort', () => resolve(a), { once: true }));
    switch (this.behaviour) {
      case 'deliver':
        return { channel: this.name, delivered: true };
      case 'fail':
        return { channel: this.name, delivered: false, detail: 'nobody' };
      case 'throw':
        throw new Error('boom');
      case 'hang':
        return new Promise(() => {});
      case 'pending-at-abort':
        return atAbort({ channel: this.name, delivered: false, pending: true });
      case 'answer-at-abort':
        return atAbort({ channel: this.name, delivered: false, detail: 'no confirmation in time' });
    }
  }
}

function fakeDb(plan: string, pushSubscriptions: number): Db {
  const query = async (sql: string) => (sql.includes('COUNT(*)') ? [{ n: pushSubscriptions }] : [{ plan, settings: '{}' }]);
  return { dialect: 'sqlite', query, run: async () => 0 } as unknown as Db;
}

const log = { warn: () => {} } as never;

function request(over: Partial<Ticket> = {}, livemode = true): RingRequest {
  const ticket = {
    id: 'tk_1',
    branchId: 'br_1',
    mode: livemode ? 'live' : 'test',
    status: 'ready',
    customerPhone: '+14155550100',
    ...over,
  } as Ticket;
  return { ringId: 'rng_1', seq: 1, reason: 'ready', ticket, livemode, channels: EVERY_CHANNEL };
}

function ringer(plan: string, subs: number, behaviours: Partial<Record<ChannelName, Behaviour>>) {
  const stubs = Object.entries(behaviours).map(([name, b]) => new Stub(name as ChannelName, b!));
  const byName = Object.fromEntries(stubs.map((s) => [s.name, s])) as Record<ChannelName, Stub>;
  return { ringer: new ChannelRinger({ db: fakeDb(plan, subs), log }, stubs), stubs: byName };
}

test('free channels first; SMS only when neither push nor page reached', async () => {
  const a = ringer('business', 1, { push: 'fail', page: 'fail', display: 'deliver', sms: 'deliver' });
  const out = await a.ringer.ring(request(), 500);
  assert.deepEqual(
    out.attempts.map((x) => x.channel),
    ['push', 'page', 'display', 'sms'],
  );
  assert.deepEqual([out.rang, out.channel_used, out.call_out_loud, out.complete], [true, 'sms', true, true]);

  const b = ringer('business', 1, { push: 'fail', page: 'deliver', display: 'fail', sms: 'deliver' });
  const reached = await b.ringer.ring(request(), 500);
  assert.equal(reached.channel_used, 'page');
  assert.equal(b.stubs.sms.calls, 0);
});

test('a failing channel is a "not delivered" attempt, not a failed ring', async () => {
  const { ringer: r } = ringer('pro', 1, { push: 'throw', page: 'deliver', display: 'fail' });
  const out = await r.ring(request(), 500);
  assert.deepEqual(
    out.attempts.find((x) => x.channel === 'push'),
    { channel: 'push', delivered: false, detail: 'error' },
  );
  assert.deepEqual([out.channel_used, out.complete], ['page', true]);
});

test('a channel that answers at the deadline has answered; one that hangs or is pending leaves the ring open', async () => {
  const answered = ringer('pro', 0, { page: 'answer-at-abort', display: 'fail' });
  const a = await answered.ringer.ring(request(), 60);
  assert.deepEqual([a.channel_used, a.complete], ['none', true]);
  assert.equal(a.attempts.find((x) => x.channel === 'page')!.detail, 'no confirmation in time');

  const pending = ringer('business', 1, { push: 'pending-at-abort', page: 'fail', display: 'deliver', sms: 'deliver' });
  const p = await pending.ringer.ring(request(), 60);
  assert.deepEqual([p.rang, p.call_out_loud, p.complete], [false, true, false]);
  assert.equal(pending.stubs.sms.calls, 0, 'push undecided: SMS is left to the job');

  const hungBoard = ringer('business', 0, { page: 'fail', display: 'hang', sms: 'deliver' });
  const h = await hungBoard.ringer.ring(request(), 400);
  assert.deepEqual([h.channel_used, h.call_out_loud, h.complete], ['sms', false, false], 'a hung board does not hold back the SMS');
});

/**
 * Runs `work` with setTimeout mocked, moving time 10 ms at a time whenever everything else has
 * settled: how long the ring took on that clock, whatever the machine's load (a wall-clock bound
 * failed on a busy CI machine).
 */
async function onFakeTimers<T>(t: TestContext, work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let settled = false;
  const running = work().finally(() => {
    settled = true;
  });
  let ms = 0;
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    if (settled || ms >= 60_000) break;
    t.mock.timers.tick(10);
    ms += 10;
  }
  const value = await running;
  t.mock.timers.reset();
  return { value, ms };
}

test('a page that never confirms leaves part of the deadline for the SMS', async (t) => {
  const { ringer: r, stubs } = ringer('business', 0, { page: 'answer-at-abort', display: 'fail', sms: 'deliver' });
  const { value: out, ms } = await onFakeTimers(t, () => r.ring(request(), 200));
  assert.ok(ms <= 200 + 100, `the ring took ${ms} ms of its 200 ms deadline (and the channels' grace to answer)`);
  assert.deepEqual([out.channel_used, out.complete], ['sms', true]);
  assert.equal(stubs.sms.calls, 1);
});

test('no channel is asked for a ticket that is not ready; no SMS without a phone or on another plan', async () => {
  const closed = ringer('business', 1, { push: 'deliver', page: 'deliver', sms: 'deliver' });
  const c = await closed.ringer.ring(request({ status: 'collected' }), 100);
  assert.deepEqual([c.rang, c.attempts.length, c.complete], [false, 0, true]);
  assert.equal(closed.stubs.push.calls + closed.stubs.page.calls + closed.stubs.sms.calls, 0);

  const noPhone = ringer('business', 0, { page: 'fail', sms: 'deliver' });
  assert.equal((await noPhone.ringer.ring(request({ customerPhone: null }), 100)).channel_used, 'none');
  const pro = ringer('pro', 0, { page: 'fail', sms: 'deliver' });
  assert.equal((await pro.ringer.ring(request(), 100)).channel_used, 'none');
  assert.equal(noPhone.stubs.sms.calls + pro.stubs.sms.calls, 0);
});

test('a ring uses only the channels it was started with: SMS "always" goes out with stage 1, even when push reached', async () => {
  const r = ringer('business', 1, { push: 'deliver', page: 'deliver', display: 'deliver', sms: 'deliver' });
  const out = await r.ringer.ring({ ...request(), channels: { free: ['push'], sms: 'always' } }, 500);
  assert.deepEqual(
    out.attempts.map((x) => [x.channel, x.delivered]),
    [
      ['push', true],
      ['sms', true],
    ],
  );
  assert.deepEqual([r.stubs.page.calls, r.stubs.display.calls], [0, 0], 'page and boards were not chosen');
  assert.deepEqual([out.channel_used, out.call_out_loud, out.complete], ['push', false, true]);

  const never = ringer('business', 1, { push: 'fail', page: 'fail', display: 'deliver', sms: 'deliver' });
  const quiet = await never.ringer.ring({ ...request(), channels: { free: ['push', 'page', 'display'], sms: 'never' } }, 500);
  assert.equal(never.stubs.sms.calls, 0, 'no SMS when the ring chose none, though nobody was reached');
  assert.deepEqual([quiet.rang, quiet.channel_used, quiet.call_out_loud], [false, 'none', true]);
});

test('SMS chosen "always" is not held back by a push still undecided at the deadline', async () => {
  const r = ringer('business', 1, { push: 'pending-at-abort', sms: 'deliver' });
  const out = await r.ringer.ring({ ...request(), channels: { free: ['push'], sms: 'always' } }, 50);
  assert.equal(r.stubs.sms.calls, 1);
  assert.deepEqual(
    out.attempts.map((x) => [x.channel, x.delivered]),
    [['sms', true]],
  );
  assert.deepEqual([out.channel_used, out.complete, out.sending], ['sms', false, true]);
});
