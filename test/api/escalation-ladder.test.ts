// The escalation ladder (decision 0032), driven by a fake clock and the job runner as the worker
// runs it: each step's ring at its time, through its channels (SMS at step 2 even though push was
// accepted), stopped by an SMS "1", hurried by a failed text, once across a restart. What a
// customer and an integrator notice: the ticket.rung events, their channels, and the texts sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeSmsProvider } from '../helpers/sms-provider.ts';
import { createApp, type App } from '../../src/app.ts';

const PUBLIC = 'http://localhost:3000';
const clock = new FakeClock();
let t: TestApp;
let sms: FakeSmsProvider;
let phoneSeq = 0;
const newPhone = (): string => `+1415556${String(1000 + ++phoneSeq).padStart(4, '0')}`;

const LADDER = [
  { after_seconds: 60, channels: ['push', 'page'], sms: 'never', call_out: true },
  { after_seconds: 120, channels: ['push', 'page'], sms: 'always', call_out: true },
  { after_seconds: 300, channels: [], sms: 'always', call_out: true },
];

before(async () => {
  sms = await new FakeSmsProvider().start();
  t = await startTestApp({ clock, env: sms.env() });
});
after(async () => {
  await t.close();
  await sms.close();
});

async function ladderTenant(ladder: unknown = LADDER): Promise<Tenant> {
  const tenant = await t.newTenant({ plan: 'business' });
  // Branch settings are shared by both modes and changed with the live key.
  const res = await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { escalation_ladder: ladder } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.escalation_ladder, ladder);
  return tenant;
}

async function readyTicket(key: string, phone: string, subscribe = false): Promise<string> {
  const created = await t.request('POST', '/v1/tickets', { key, body: { customer_phone: phone } });
  assert.equal(created.status, 201, created.text);
  if (subscribe)
    assert.equal((await t.request('POST', `/v1/test_helpers/tickets/${created.body.id}/customer/subscribe`, { key })).status, 200);
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key });
  assert.equal(ready.status, 200, ready.text);
  return created.body.id;
}

type Ring = { at: number; reason: string; channels: string[]; channel_used: string };

/** The ticket's rings, oldest first: seconds after `t0`, reason, the channels that reached the customer, channel_used. */
async function timeline(key: string, id: string, t0: number): Promise<Ring[]> {
  const events = await t.request('GET', '/v1/events?type=ticket.rung&limit=100', { key });
  return events.body.data
    .filter((e: any) => e.data.object.id === id)
    .reverse()
    .map((e: any) => ({
      at: (Date.parse(e.created_at) - t0) / 1000,
      reason: e.data.ring.reason,
      channels: e.data.ring.channels.filter((a: any) => a.delivered === true).map((a: any) => a.channel),
      channel_used: e.data.ring.channel_used,
    }));
}

async function at(ms: number, runner: App['runner'] = t.app.runner): Promise<void> {
  clock.advance(ms);
  while ((await runner.runOnce()) > 0) {
    /* jobs that became due while others ran */
  }
}

test('PATCH /v1/branch: a ladder replaces the reminders, null restores them; bad ladders are problems', async () => {
  const biz = await ladderTenant();
  const got = await t.request('GET', '/v1/branch', { key: biz.testKey });
  assert.deepEqual(got.body.escalation_ladder, LADDER);
  const reset = await t.request('PATCH', '/v1/branch', { key: biz.liveKey, body: { escalation_ladder: null } });
  assert.equal(reset.body.escalation_ladder, null);
  const bad = async (body: unknown, status: number, pointer?: string) => {
    const res = await t.request('PATCH', '/v1/branch', { key: biz.liveKey, body });
    assert.equal(res.status, status, res.text);
    assert.match(res.body.type, /^\/problems\//);
    if (pointer !== undefined) assert.equal(res.body.errors?.[0]?.pointer, pointer, res.text);
    return res;
  };
  const step = { after_seconds: 60, channels: ['push'], sms: 'never', call_out: false };
  await bad({ escalation_ladder: [step, { ...step, after_seconds: 60 }] }, 422, '/escalation_ladder/1/after_seconds');
  await bad({ escalation_ladder: [step, { ...step, after_seconds: 30 }] }, 422, '/escalation_ladder/1/after_seconds');
  await bad({ escalation_ladder: Array.from({ length: 6 }, (_, i) => ({ ...step, after_seconds: 60 * (i + 1) })) }, 422);
  await bad({ escalation_ladder: [{ ...step, channels: ['fax'] }] }, 422);
  await bad({ escalation_ladder: [{ ...step, channels: [] }] }, 422, '/escalation_ladder/0');
  await bad({ escalation_ladder: [{ ...step, sms: 'sometimes' }] }, 422);
  await bad({ escalation_ladder: [{ ...step, extra: 1 }] }, 422);
  await bad({ sms_enabled: false, escalation_ladder: [{ ...step, sms: 'always' }] }, 422, '/escalation_ladder/0/sms');
  // Without SMS in the plan, a step that texts is refused; one that never texts is fine.
  const pro = await t.newTenant({ plan: 'pro' });
  const refused = await t.request('PATCH', '/v1/branch', {
    key: pro.liveKey,
    body: { escalation_ladder: [step, { ...step, after_seconds: 120, sms: 'fallback' }] },
  });
  assert.equal(refused.status, 403, refused.text);
  assert.equal(refused.body.type, '/problems/plan-required');
  assert.equal((await t.request('PATCH', '/v1/branch', { key: pro.liveKey, body: { escalation_ladder: [step] } })).status, 200);
  assert.equal((await t.request('GET', '/v1/branch', { key: pro.testKey })).body.escalation_ladder.length, 1);
});

test('a customer who never answers gets each step at its time through its channels, SMS at step 2 even though push was accepted', async () => {
  const biz = await ladderTenant();
  const t0 = clock.now();
  const id = await readyTicket(biz.testKey, newPhone(), true);
  await at(59_999);
  assert.equal((await timeline(biz.testKey, id, t0)).length, 1, 'not before step 1');
  await at(1);
  await at(60_000);
  await at(180_000);
  await at(3600_000);
  const rings = await timeline(biz.testKey, id, t0);
  assert.deepEqual(rings, [
    { at: 0, reason: 'ready', channels: ['push'], channel_used: 'push' },
    { at: 60, reason: 'reminder', channels: ['push'], channel_used: 'push' },
    { at: 120, reason: 'reminder', channels: ['push', 'sms'], channel_used: 'push' },
    { at: 300, reason: 'reminder', channels: ['sms'], channel_used: 'sms' },
  ]);
  assert.equal((await t.request('GET', `/v1/tickets/${id}`, { key: biz.testKey })).body.rings, 4, 'three steps, no more');
});

test('a customer who answers "1" by SMS gets no further step', async () => {
  const biz = await ladderTenant();
  const phone = newPhone();
  const t0 = clock.now();
  const id = await readyTicket(biz.liveKey, phone);
  const texts = sms.messages.length;
  assert.equal(sms.messages.at(-1)!.to, phone, 'no push: the ready texts as the fallback');
  await at(60_000);
  await at(60_000);
  assert.equal(sms.messages.length, texts + 1, 'step 2 texts');
  const answer = await sms.inbound(t.url, PUBLIC, phone, '1');
  assert.equal(answer.status, 200, answer.text);
  await at(180_000);
  await at(3600_000);
  const rings = await timeline(biz.liveKey, id, t0);
  assert.deepEqual(rings, [
    { at: 0, reason: 'ready', channels: ['sms'], channel_used: 'sms' },
    { at: 60, reason: 'reminder', channels: [], channel_used: 'none' },
    { at: 120, reason: 'reminder', channels: ['sms'], channel_used: 'sms' },
  ]);
  assert.equal(sms.messages.filter((m) => m.to === phone).length, 2, 'no text after "1"');
  assert.notEqual((await t.request('GET', `/v1/tickets/${id}`, { key: biz.liveKey })).body.customer.acknowledged_at, null);
});

test('a failed text moves the ladder to its next step at once', async () => {
  const biz = await ladderTenant([
    { after_seconds: 60, channels: ['push', 'page'], sms: 'always', call_out: false },
    { after_seconds: 600, channels: ['push', 'page'], sms: 'always', call_out: false },
  ]);
  const phone = newPhone();
  const t0 = clock.now();
  const id = await readyTicket(biz.liveKey, phone);
  await at(60_000);
  const stepOne = sms.messages.at(-1)!;
  assert.equal(stepOne.to, phone);
  await at(1_000);
  assert.equal((await sms.receipt(t.url, stepOne, 'undelivered', { errorCode: '30003' })).status, 204);
  await at(0);
  const rings = await timeline(biz.liveKey, id, t0);
  assert.deepEqual(
    rings.map((r) => [r.at, r.reason]),
    [
      [0, 'ready'],
      [60, 'reminder'],
      [61, 'reminder'],
    ],
    'step 2 at 61 s, not 600 s',
  );
  assert.equal(sms.messages.filter((m) => m.to === phone).length, 3);
  // A text that was delivered changes nothing: the ladder has no step 3, and nothing else rings.
  await at(3600_000);
  assert.equal((await timeline(biz.liveKey, id, t0)).length, 3);
});

test('ladder steps run once across a restart', async () => {
  const biz = await ladderTenant();
  const t0 = clock.now();
  const id = await readyTicket(biz.testKey, newPhone(), true);
  const config = t.app.services.config;
  await t.app.close();
  const second = await createApp(config, { clock });
  let third: App | undefined;
  try {
    await at(60_000, second.runner);
    await second.close();
    third = await createApp(config, { clock });
    await at(60_000, third.runner);
    await at(3600_000, third.runner);
    const rows = await third.services.db.query<{ reason: string; channels: string }>(
      'SELECT reason, channels FROM rings WHERE ticket_id = $1 ORDER BY seq',
      [id],
    );
    assert.deepEqual(
      rows.map((r) => [r.reason, JSON.parse(r.channels).sms]),
      [
        ['ready', 'fallback'],
        ['reminder', 'never'],
        ['reminder', 'always'],
        ['reminder', 'always'],
      ],
    );
    assert.ok(clock.now() - t0 > 300_000);
  } finally {
    await second.close();
    await third?.close();
  }
});
