import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAN_OUT_ORDER, planRing, smsNeeded, summarizeRing, type RingFacts } from '../../src/domain/ring-policy.ts';
import { EVERY_CHANNEL } from '../../src/domain/channel-choice.ts';
import type { FreeChannel } from '../../src/core/ring.ts';
import type { ChannelAttempt, ChannelName } from '../../src/core/ring.ts';
import { PLANS } from '../../src/core/tenancy.ts';

const ALL: ChannelName[] = ['push', 'page', 'sms', 'display'];
const base: RingFacts = {
  configured: new Set(ALL),
  ticketReady: true,
  pageOpen: null,
  pushSubscriptions: 0,
  phone: false,
  plan: 'pro',
  smsEnabled: true,
  whatsappEnabled: false,
  livemode: true,
};
const attempt = (channel: ChannelName, delivered: boolean): ChannelAttempt => ({ channel, delivered });

test('the contract cases read like PRODUCT.md §2', () => {
  const cases: Array<[string, Partial<RingFacts>, ChannelName[], string]> = [
    ['nothing known: page and board are tried', {}, ['page', 'display'], 'no sms: plan'],
    ['a push subscription is tried first', { pushSubscriptions: 2 }, ['push', 'page', 'display'], 'no sms: plan'],
    ['no page open: the page is not tried', { pageOpen: false }, ['display'], 'no sms: plan'],
    ['business with a phone: sms in reserve', { plan: 'business', phone: true }, ['page', 'display'], 'sms'],
    ['business in test mode: simulated sms', { plan: 'business', phone: true, livemode: false }, ['page', 'display'], 'sms simulated'],
    ['business without phone', { plan: 'business' }, ['page', 'display'], 'no sms: no-phone'],
    ['business, branch turned sms off', { plan: 'business', phone: true, smsEnabled: false }, ['page', 'display'], 'no sms: disabled'],
    ['free plan with a phone', { plan: 'free', phone: true }, ['page', 'display'], 'no sms: plan'],
    [
      'a closed ticket is never rung',
      { ticketReady: false, plan: 'business', phone: true, pushSubscriptions: 1 },
      [],
      'no sms: ticket-not-ready',
    ],
    [
      'only push configured',
      { configured: new Set<ChannelName>(['push']), pushSubscriptions: 1, plan: 'business', phone: true },
      ['push'],
      'no sms: not-configured',
    ],
  ];
  for (const [name, facts, fanOut, sms] of cases) {
    const plan = planRing({ ...base, ...facts });
    assert.deepEqual(plan.fanOut, fanOut, name);
    const smsText = plan.sms.send ? (plan.sms.simulate ? 'sms simulated' : 'sms') : `no sms: ${plan.sms.reason}`;
    assert.equal(smsText, sms, name);
  }
});

test('every combination of facts follows the rules', () => {
  let n = 0;
  const subsets = Array.from({ length: 16 }, (_, mask) => new Set(ALL.filter((_, i) => mask & (1 << i))));
  for (const configured of subsets)
    for (const ticketReady of [true, false])
      for (const pageOpen of [true, false, null]) {
        for (const pushSubscriptions of [0, 1, 3])
          for (const phone of [true, false])
            for (const plan of PLANS) {
              for (const smsEnabled of [true, false])
                for (const livemode of [true, false]) {
                  const f: RingFacts = {
                    configured,
                    ticketReady,
                    pageOpen,
                    pushSubscriptions,
                    phone,
                    plan,
                    smsEnabled,
                    whatsappEnabled: false,
                    livemode,
                  };
                  const p = planRing(f);
                  n++;
                  // Fan-out: exactly the configured free channels that can reach someone, in a fixed order.
                  const expected = (['push', 'page', 'display'] as ChannelName[]).filter(
                    (c) =>
                      ticketReady && configured.has(c) && (c !== 'push' || pushSubscriptions > 0) && (c !== 'page' || pageOpen !== false),
                  );
                  assert.deepEqual(p.fanOut, expected);
                  assert.ok(!p.fanOut.includes('sms'), 'sms is never part of the free fan-out');
                  const smsAllowed = ticketReady && configured.has('sms') && plan === 'business' && smsEnabled && phone;
                  assert.equal(p.sms.send, smsAllowed, JSON.stringify({ ...f, configured: [...configured] }));
                  if (p.sms.send) assert.equal(p.sms.simulate, !livemode, 'test mode simulates, live mode sends');
                  // Stage 2 follows stage 1: never when push or page reached, always (if allowed) otherwise.
                  for (const reached of [
                    [],
                    [attempt('push', true)],
                    [attempt('page', true)],
                    [attempt('display', true)],
                    [attempt('push', false), attempt('page', false)],
                  ]) {
                    const freeReached = reached.some((a) => a.delivered && a.channel !== 'display');
                    assert.equal(smsNeeded(p, reached), smsAllowed && !freeReached);
                  }
                }
            }
      }
  assert.equal(n, 16 * 2 * 3 * 3 * 2 * 3 * 2 * 2);
});

test('the answer names the strongest channel that reached the customer', () => {
  // Every channel absent, tried-and-failed or delivered: 3^4 outcomes.
  const states = ['absent', 'failed', 'delivered'] as const;
  let n = 0;
  for (let code = 0; code < 81; code++) {
    const attempts: ChannelAttempt[] = [];
    let c = code;
    for (const ch of ALL) {
      const s = states[c % 3]!;
      c = Math.floor(c / 3);
      if (s !== 'absent') attempts.push(attempt(ch, s === 'delivered'));
    }
    const got = summarizeRing(attempts);
    const delivered = (ch: ChannelName) => attempts.some((a) => a.channel === ch && a.delivered);
    const want = delivered('push') ? 'push' : delivered('page') ? 'page' : delivered('sms') ? 'sms' : 'none';
    assert.equal(got.channel_used, want);
    assert.equal(got.rang, want !== 'none');
    assert.equal(got.call_out_loud, delivered('display'), 'the board calling out is not a customer reached, but is reported');
    n++;
  }
  assert.equal(n, 81);
  assert.deepEqual(summarizeRing([]), { rang: false, channel_used: 'none', call_out_loud: false });
  assert.deepEqual(summarizeRing([attempt('display', true)]), { rang: false, channel_used: 'none', call_out_loud: true });
});

test('an SMS whose outcome is unknown makes the answer "unknown", never "none", unless another channel reached the customer', () => {
  const unknownSms: ChannelAttempt = { channel: 'sms', delivered: null, detail: 'unknown: an earlier attempt stopped mid-send' };
  assert.deepEqual(summarizeRing([attempt('push', false), attempt('page', false), unknownSms]), {
    rang: false,
    channel_used: 'unknown',
    call_out_loud: false,
  });
  assert.deepEqual(summarizeRing([attempt('display', true), unknownSms]), { rang: false, channel_used: 'unknown', call_out_loud: true });
  assert.deepEqual(summarizeRing([attempt('page', true), unknownSms]), { rang: true, channel_used: 'page', call_out_loud: false });
});

test('a ring narrowed to some channels: only those are planned, and SMS is never, a fallback or always', () => {
  const facts: RingFacts = { ...base, pushSubscriptions: 1, plan: 'business', phone: true };
  const frees: FreeChannel[][] = [[], ['push'], ['page'], ['display'], ['push', 'page'], ['push', 'page', 'display'], ['display', 'push']];
  const reachedByPush = [attempt('push', true)];
  for (const free of frees)
    for (const sms of ['never', 'fallback', 'always'] as const) {
      const p = planRing(facts, { free, sms });
      const name = JSON.stringify({ free, sms });
      assert.deepEqual(
        p.fanOut,
        FAN_OUT_ORDER.filter((c) => (free as ChannelName[]).includes(c)),
        name,
      );
      assert.equal(p.sms.send, sms !== 'never', name);
      if (!p.sms.send) assert.equal(p.sms.reason, 'not-chosen', name);
      else assert.equal(p.sms.alongside, sms === 'always', name);
      assert.equal(smsNeeded(p, reachedByPush), sms === 'always', `${name}: push reached`);
      assert.equal(smsNeeded(p, []), sms !== 'never', `${name}: nothing reached`);
    }
  // What the plan, the phone and the branch rule out stays out whatever the ring chose.
  assert.equal(planRing({ ...facts, plan: 'pro' }, { free: ['push'], sms: 'always' }).sms.send, false);
  assert.equal(planRing({ ...facts, phone: false }, { free: ['push'], sms: 'always' }).sms.send, false);
  assert.deepEqual(planRing({ ...facts, pushSubscriptions: 0, pageOpen: false }, { free: ['push', 'page'], sms: 'never' }).fanOut, []);
  // Without a choice, a ring uses every channel (EVERY_CHANNEL).
  assert.deepEqual(planRing(facts), planRing(facts, EVERY_CHANNEL));
});

test('a wallet pass the phone fetched is a free channel: weaker than push, stronger than page, and no SMS follows it', () => {
  const withWallet: RingFacts = { ...base, configured: new Set([...ALL, 'wallet']), phone: true, plan: 'business' };
  assert.deepEqual(planRing(withWallet).fanOut, ['wallet', 'page', 'display'], 'tried in stage 1 when configured');
  assert.deepEqual(
    planRing(withWallet, { free: ['push', 'page'], sms: 'fallback' }).fanOut,
    ['page'],
    'a ladder step without it leaves it out',
  );
  assert.deepEqual(planRing(base).fanOut, ['page', 'display'], 'absent when no wallet is configured');
  const p = planRing(withWallet);
  assert.equal(smsNeeded(p, [attempt('wallet', true)]), false);
  assert.equal(smsNeeded(p, [attempt('wallet', false), attempt('page', false)]), true);
  assert.equal(summarizeRing([attempt('wallet', true), attempt('page', true)]).channel_used, 'wallet');
  assert.equal(summarizeRing([attempt('wallet', true), attempt('push', true)]).channel_used, 'push');
  assert.equal(summarizeRing([attempt('wallet', true), attempt('sms', true)]).channel_used, 'wallet');
  assert.deepEqual(summarizeRing([attempt('wallet', false)]), { rang: false, channel_used: 'none', call_out_loud: false });
  assert.ok(EVERY_CHANNEL.free.includes('wallet'));
});

test('WhatsApp is a paid channel beside SMS: each by its branch switch, both on the business plan only (decision 0091)', () => {
  const paid = { ...base, configured: new Set<ChannelName>([...ALL, 'whatsapp']), phone: true, plan: 'business' as const };
  const channels = (f: RingFacts) => {
    const p = planRing(f).sms;
    return p.send ? p.channels : p.reason;
  };
  assert.deepEqual(channels({ ...paid, smsEnabled: true, whatsappEnabled: false }), ['sms'], 'off by default');
  assert.deepEqual(channels({ ...paid, smsEnabled: true, whatsappEnabled: true }), ['sms', 'whatsapp']);
  assert.deepEqual(channels({ ...paid, smsEnabled: false, whatsappEnabled: true }), ['whatsapp']);
  assert.equal(channels({ ...paid, plan: 'pro', smsEnabled: false, whatsappEnabled: true }), 'plan');
  assert.equal(channels({ ...paid, phone: false, smsEnabled: false, whatsappEnabled: true }), 'no-phone');
  // A ring that reached the customer by SMS and WhatsApp is named after SMS, the stronger.
  assert.equal(summarizeRing([attempt('whatsapp', true), attempt('sms', true)]).channel_used, 'sms');
  assert.equal(summarizeRing([attempt('sms', false), attempt('whatsapp', true)]).channel_used, 'whatsapp');
});
