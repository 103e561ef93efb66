// The ring module's policy (src/domain/ring-escalation.ts): which channels each ring uses and when each
// reminder falls due, over the branch settings that decide them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reminderStep, ringChannels } from '../../src/domain/ring-escalation.ts';
import { ladderDecision, ladderOf, stepChannels, SNOOZE_RING_WAIT_MS, type LadderFacts } from '../../src/domain/ring-escalation.ts';
import { ladderFault, ladderFromReminders, firstTextingStep, MAX_LADDER_STEPS } from '../../src/domain/escalation-ladder.ts';
import type { LadderStep } from '../../src/core/branch-settings.ts';
import { withDefaults } from '../../src/domain/branch-settings.ts';
import { EVERY_CHANNEL } from '../../src/domain/channel-choice.ts';

test("reminders: one step per reminder up to the branch's count, each a delay after the ring before it", () => {
  for (const count of [0, 1, 2, 5])
    for (const delay of [30, 120, 600]) {
      const settings = withDefaults({ reminder_count: count, reminder_delay_seconds: delay });
      for (let n = -1; n <= count + 2; n++) {
        const step = reminderStep(settings, n);
        if (n < 1 || n > count) {
          assert.equal(step, null, `count ${count}: no reminder ${n}`);
          continue;
        }
        assert.deepEqual(step, { n, delayMs: delay * 1000, channels: EVERY_CHANNEL });
      }
      assert.equal(reminderStep(settings, 1.5), null);
    }
});

test('every ring, reminders included, tries everything the customer has unless a step says otherwise', () => {
  const settings = withDefaults({});
  for (const reason of ['ready', 'manual', 'snooze_end'] as const) assert.deepEqual(ringChannels(settings, reason), EVERY_CHANNEL);
  assert.deepEqual(ringChannels(settings, 'reminder', 1), reminderStep(settings, 1)!.channels);
  assert.deepEqual(
    ringChannels(withDefaults({ reminder_count: 0 }), 'reminder', 1),
    EVERY_CHANNEL,
    'a reminder past the last step (a setting changed meanwhile)',
  );
});

// --- The escalation ladder (decision 0032) ---

const LADDER: LadderStep[] = [
  { after_seconds: 60, channels: ['push', 'page'], sms: 'never', call_out: true },
  { after_seconds: 120, channels: ['push', 'page'], sms: 'always', call_out: true },
  { after_seconds: 300, channels: [], sms: 'always', call_out: false },
];
const laddered = withDefaults({ escalation_ladder: LADDER, reminder_count: 5, reminder_delay_seconds: 30 });

test('a branch without a ladder has the one its reminder settings always made', () => {
  for (const count of [0, 1, 5])
    for (const delay of [30, 600]) {
      const settings = withDefaults({ reminder_count: count, reminder_delay_seconds: delay });
      assert.deepEqual(ladderOf(settings), ladderFromReminders(delay, count));
      for (const step of ladderOf(settings)) assert.deepEqual(stepChannels(step), EVERY_CHANNEL);
    }
  assert.deepEqual(
    ladderOf(withDefaults({})).map((s) => s.after_seconds),
    [120, 240],
  );
});

test('a ladder replaces the reminder settings: each step its gap after the one before, its channels', () => {
  assert.deepEqual(reminderStep(laddered, 1), { n: 1, delayMs: 60_000, channels: { free: ['push', 'page', 'display'], sms: 'never' } });
  assert.deepEqual(reminderStep(laddered, 2), { n: 2, delayMs: 60_000, channels: { free: ['push', 'page', 'display'], sms: 'always' } });
  assert.deepEqual(reminderStep(laddered, 3), { n: 3, delayMs: 180_000, channels: { free: [], sms: 'always' } });
  assert.equal(reminderStep(laddered, 4), null, 'three steps, not the five reminders');
  assert.deepEqual(ringChannels(laddered, 'reminder', 2), { free: ['push', 'page', 'display'], sms: 'always' });
  for (const reason of ['ready', 'manual', 'snooze_end'] as const) assert.deepEqual(ringChannels(laddered, reason), EVERY_CHANNEL);
  assert.equal(reminderStep(withDefaults({ escalation_ladder: [], reminder_count: 3 }), 1), null, 'an empty ladder: no reminders');
  assert.deepEqual(stepChannels({ after_seconds: 60, channels: ['page'], sms: 'fallback', call_out: false }), {
    free: ['page'],
    sms: 'fallback',
  });
});

const READY_AT = 1_000_000;
const facts = (over: Partial<LadderFacts>): LadderFacts => ({
  now: READY_AT,
  ready: true,
  readyAt: READY_AT,
  acknowledgedAt: null,
  lastRingAt: READY_AT,
  snoozedUntil: null,
  lastTextFailed: false,
  ...over,
});

test("the ladder's decision: stop when closed, acknowledged since the ready, or past the last step", () => {
  assert.deepEqual(ladderDecision(laddered, 1, facts({ ready: false, now: READY_AT + 3600_000 })), { stop: 'closed' });
  assert.deepEqual(ladderDecision(laddered, 1, facts({ acknowledgedAt: READY_AT + 5, now: READY_AT + 3600_000 })), {
    stop: 'acknowledged',
  });
  assert.deepEqual(
    ladderDecision(laddered, 1, facts({ acknowledgedAt: READY_AT, now: READY_AT + 60_000 })),
    { stop: 'acknowledged' },
    'in the same instant as the ready',
  );
  // An acknowledgement of an earlier ready (the ticket was made ready again) does not count.
  assert.deepEqual(ladderDecision(laddered, 1, facts({ acknowledgedAt: READY_AT - 1, now: READY_AT + 60_000 })), {
    ring: reminderStep(laddered, 1),
  });
  for (const n of [0, 4, 99, 1.5]) assert.deepEqual(ladderDecision(laddered, n, facts({ now: READY_AT + 3600_000 })), { stop: 'no-step' });
});

test("the ladder's decision: each step at its time from the last ring, a manual ring or a snooze moving it later", () => {
  const d1 = ladderDecision(laddered, 1, facts({ now: READY_AT + 59_999 }));
  assert.deepEqual(d1, { waitUntil: READY_AT + 60_000 });
  assert.deepEqual(ladderDecision(laddered, 1, facts({ now: READY_AT + 60_000 })), { ring: reminderStep(laddered, 1) });
  // Step 2 after step 1's ring at 60 s: due at 120 s, its after_seconds.
  assert.deepEqual(ladderDecision(laddered, 2, facts({ lastRingAt: READY_AT + 60_000, now: READY_AT + 100_000 })), {
    waitUntil: READY_AT + 120_000,
  });
  assert.deepEqual(ladderDecision(laddered, 2, facts({ lastRingAt: READY_AT + 60_000, now: READY_AT + 120_000 })), {
    ring: reminderStep(laddered, 2),
  });
  // A manual ring at 90 s: step 2 waits its gap after it.
  assert.deepEqual(ladderDecision(laddered, 2, facts({ lastRingAt: READY_AT + 90_000, now: READY_AT + 120_000 })), {
    waitUntil: READY_AT + 150_000,
  });
  // A snooze to 10 min whose ring came: a gap after the later of the two.
  assert.deepEqual(
    ladderDecision(laddered, 1, facts({ snoozedUntil: READY_AT + 600_000, lastRingAt: READY_AT + 600_000, now: READY_AT + 60_000 })),
    { waitUntil: READY_AT + 660_000 },
  );
  assert.deepEqual(
    ladderDecision(laddered, 1, facts({ snoozedUntil: READY_AT + 600_000, lastRingAt: READY_AT + 600_000, now: READY_AT + 660_000 })),
    { ring: reminderStep(laddered, 1) },
  );
});

test("the ladder's decision: a snooze whose ring is not recorded yet comes first, for one gap at most", () => {
  const snoozed = { snoozedUntil: READY_AT + 120_000, lastRingAt: READY_AT };
  assert.deepEqual(ladderDecision(laddered, 1, facts({ ...snoozed, now: READY_AT + 180_000 })), {
    waitUntil: READY_AT + 180_000 + SNOOZE_RING_WAIT_MS,
  });
  assert.deepEqual(ladderDecision(laddered, 1, facts({ ...snoozed, now: READY_AT + 238_000 })), { waitUntil: READY_AT + 240_000 });
  assert.deepEqual(
    ladderDecision(laddered, 1, facts({ ...snoozed, now: READY_AT + 240_000 })),
    { ring: reminderStep(laddered, 1) },
    'a snooze ring that never comes',
  );
});

test("the ladder's decision: the last ring's text failed, so the next step rings at once", () => {
  assert.deepEqual(ladderDecision(laddered, 2, facts({ lastRingAt: READY_AT + 60_000, now: READY_AT + 61_000, lastTextFailed: true })), {
    ring: reminderStep(laddered, 2),
  });
  assert.deepEqual(ladderDecision(laddered, 3, facts({ lastRingAt: READY_AT + 120_000, now: READY_AT + 120_000, lastTextFailed: true })), {
    ring: reminderStep(laddered, 3),
  });
  // Not through a snooze, nor past the ladder, nor for a customer who answered.
  assert.deepEqual(
    ladderDecision(
      laddered,
      2,
      facts({ snoozedUntil: READY_AT + 300_000, lastRingAt: READY_AT + 60_000, now: READY_AT + 61_000, lastTextFailed: true }),
    ),
    { waitUntil: READY_AT + 300_000 },
  );
  assert.deepEqual(ladderDecision(laddered, 4, facts({ now: READY_AT + 61_000, lastTextFailed: true })), { stop: 'no-step' });
  assert.deepEqual(ladderDecision(laddered, 2, facts({ acknowledgedAt: READY_AT + 1, now: READY_AT + 61_000, lastTextFailed: true })), {
    stop: 'acknowledged',
  });
});

test('a ladder is bounded, its steps later each time, each using something; texting steps are found', () => {
  assert.equal(ladderFault(LADDER), null);
  assert.equal(ladderFault([]), null);
  const step = (after_seconds: number, over: Partial<LadderStep> = {}): LadderStep => ({
    after_seconds,
    channels: ['push'],
    sms: 'never',
    call_out: false,
    ...over,
  });
  assert.equal(ladderFault(Array.from({ length: MAX_LADDER_STEPS }, (_, i) => step(60 * (i + 1)))), null);
  assert.equal(ladderFault(Array.from({ length: MAX_LADDER_STEPS + 1 }, (_, i) => step(60 * (i + 1))))?.pointer, '');
  assert.equal(ladderFault([step(29)])?.pointer, '/0/after_seconds');
  assert.equal(ladderFault([step(30)]), null);
  assert.equal(ladderFault([step(60), step(60)])?.pointer, '/1/after_seconds', 'not later');
  assert.equal(ladderFault([step(60), step(89)])?.pointer, '/1/after_seconds', 'less than 30 s later');
  assert.equal(ladderFault([step(60), step(30)])?.pointer, '/1/after_seconds', 'earlier');
  assert.equal(ladderFault([step(7201)])?.pointer, '/0/after_seconds');
  assert.equal(ladderFault([step(60, { channels: ['push', 'push'] })])?.pointer, '/0/channels');
  assert.equal(ladderFault([step(60, { channels: [] })])?.pointer, '/0', 'nothing at all');
  for (const over of [{ sms: 'always' as const }, { sms: 'fallback' as const }, { call_out: true }])
    assert.equal(ladderFault([step(60, { channels: [], ...over })]), null);
  assert.equal(firstTextingStep(LADDER), 1);
  assert.equal(firstTextingStep([step(60)]), -1);
  assert.equal(firstTextingStep(ladderFromReminders(120, 2)), 0, "the reminder settings' ladder has SMS as the fallback");
});
