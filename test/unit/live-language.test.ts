import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickLanguage } from '../../src/i18n/language.ts';
import { calloutText } from '../../src/i18n/board-texts.ts';
import { buildPageView, pageState } from '../../src/realtime/page-view.ts';
import { withDefaults } from '../../src/domain/branch-settings.ts';
import type { Ticket } from '../../src/core/ticket.ts';
import type { Branch } from '../../src/store/tenancy.ts';

test('Accept-Language: highest q among supported primaries; branch default otherwise', () => {
  assert.equal(pickLanguage('fr-CH, fr;q=0.9, en;q=0.8', 'en'), 'fr');
  assert.equal(pickLanguage('ja, de;q=0.3, es;q=0.7', 'en'), 'es');
  assert.equal(pickLanguage('ja', 'de'), 'de');
  assert.equal(pickLanguage(undefined, 'fr'), 'fr');
  assert.equal(pickLanguage('de;q=0', 'fr'), 'fr');
  assert.equal(pickLanguage('*', 'es'), 'es');
  assert.equal(pickLanguage('en', 'xx'), 'en');
  assert.equal(pickLanguage('garbage;;;q=abc,,', 'de'), 'de');
});

test('call-outs in the branch language, without the hyphen', () => {
  assert.equal(calloutText('en', 'A-42'), 'Number A 42');
  assert.equal(calloutText('fr', 'A-42'), 'Numéro A 42');
  assert.equal(calloutText('es', 'B-7'), 'Número B 7');
  assert.equal(calloutText('de', 'A-1'), 'Nummer A 1');
});

const ticket = (over: Partial<Ticket> = {}): Ticket => ({
  id: 'tk_1',
  branchId: 'br_1',
  mode: 'test',
  queue: 'A',
  number: 4,
  displayNumber: 'A-4',
  status: 'created',
  token: 'T',
  externalRef: 'secret-ref',
  customerPhone: '+15550000000',
  metadata: { name: 'Alice' },
  source: null,
  createdAt: 0,
  readyAt: null,
  collectedAt: null,
  cancelledAt: null,
  expiredAt: null,
  closedAt: null,
  cancelReason: null,
  viewedAt: null,
  notifications: 'none',
  acknowledgedAt: null,
  snoozedUntil: null,
  rings: 0,
  lastRingAt: null,
  expiresAt: 1e12,
  updatedAt: 0,
  ...over,
});
const branch = {
  id: 'br_1',
  accountId: 'acct_1',
  name: 'B',
  timezone: 'Europe/Paris',
  defaultQueue: 'A',
  settings: withDefaults({}),
  createdAt: 0,
  updatedAt: 0,
} as Branch;

test('page state: acknowledged only after the latest ring; snoozed while the snooze runs', () => {
  assert.equal(pageState(ticket({ status: 'ready', rings: 1, lastRingAt: 10 }), 20), 'ready');
  assert.equal(pageState(ticket({ status: 'ready', rings: 1, lastRingAt: 10, acknowledgedAt: 15 }), 20), 'acknowledged');
  assert.equal(
    pageState(ticket({ status: 'ready', rings: 2, lastRingAt: 30, acknowledgedAt: 15 }), 40),
    'ready',
    'rung again after the answer',
  );
  assert.equal(pageState(ticket({ status: 'ready', snoozedUntil: 100 }), 50), 'snoozed');
  assert.equal(pageState(ticket({ status: 'ready', snoozedUntil: 100 }), 150), 'ready');
});

test("the page view: position and wait texts, the ring to alert for, the branch's own message, nothing personal", () => {
  const v = buildPageView({
    ticket: ticket({ createdAt: 0 }),
    branch,
    lang: 'en',
    now: 120_000,
    position: 3,
    medianPrepMs: 600_000,
    announcements: [],
    ringId: null,
    phoneEntry: false,
  });
  assert.deepEqual([v.position_text, v.wait_text], ['2 orders ahead of you', 'Estimated wait: about 8 min']);
  const soon = buildPageView({
    ticket: ticket({ createdAt: 0 }),
    branch,
    lang: 'en',
    now: 590_000,
    position: 1,
    medianPrepMs: 600_000,
    announcements: [],
    ringId: null,
    phoneEntry: false,
  });
  assert.deepEqual([soon.position_text, soon.wait_text], ['You’re next', 'Estimated wait: any minute now']);
  const rung = buildPageView({
    ticket: ticket({ status: 'ready', rings: 2, lastRingAt: 5 }),
    branch,
    lang: 'fr',
    now: 10,
    position: null,
    medianPrepMs: null,
    announcements: [],
    ringId: 'rng_x',
    phoneEntry: false,
  });
  assert.deepEqual(rung.ring, { id: 'rng_x', seq: 2 });
  assert.equal(rung.heading, 'Votre commande est prête !');
  const custom = {
    ...branch,
    settings: withDefaults({ customer_page: { language: 'en', messages: { waiting: 'Grab a seat!', ready: null, closed: null } } }),
  } as Branch;
  assert.equal(
    buildPageView({
      ticket: ticket(),
      branch: custom,
      lang: 'en',
      now: 0,
      position: 1,
      medianPrepMs: null,
      announcements: [],
      ringId: null,
      phoneEntry: false,
    }).detail,
    'Grab a seat!',
  );
  const json = JSON.stringify(v);
  for (const s of ['secret-ref', '+15550000000', 'Alice', 'tk_1']) assert.ok(!json.includes(s), s);
  assert.deepEqual([v.phone_entry, v.phone_text], [false, null], 'no phone asked for, none shown');
});

test('where the branch asks for phone numbers, the page view offers the form and shows the number only masked, while the ticket is open', () => {
  const base = { branch, lang: 'en' as const, now: 0, position: 1, medianPrepMs: null, announcements: [], ringId: null, phoneEntry: true };
  const v = buildPageView({ ...base, ticket: ticket({ customerPhone: '+447400123456' }) });
  assert.equal(v.phone_entry, true);
  assert.equal(v.phone_text, 'Texts for this order go to +44\u00a0••••\u00a0•••456.');
  assert.ok(!JSON.stringify(v).includes('7400123'), 'never the whole number');
  assert.equal(buildPageView({ ...base, ticket: ticket({ customerPhone: null }) }).phone_text, null);
  const closed = buildPageView({ ...base, ticket: ticket({ status: 'collected', customerPhone: null }) });
  assert.deepEqual([closed.phone_entry, closed.phone_text], [false, null]);
});
