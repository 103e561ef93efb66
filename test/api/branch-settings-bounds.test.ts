// Every branch setting PATCH /v1/branch accepts works on both stores (issue 24, item 4): at each
// bound and with fractions within bounds, the branch's tickets are still created and made ready.
// expiry_hours is rounded once, at the edge, to the nearest whole minute (decision 0051); the
// settings that are whole numbers refuse fractions with a problem rather than storing them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type Tenant, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';

const clock = new FakeClock();
let t: TestApp;
let tenant: Tenant;
before(async () => {
  t = await startTestApp({ clock, env: { RATE_LIMIT_WRITES_BURST: '1000' } });
  tenant = await t.newTenant({ plan: 'pro' });
});
after(() => t.close());

const patch = (body: unknown): Promise<Res> => t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body });

async function expiresAt(ticketId: string): Promise<unknown> {
  const [row] = await t.app.services.db.query<{ expires_at: unknown }>('SELECT expires_at FROM tickets WHERE id = $1', [ticketId]);
  return row!.expires_at;
}

/** A ticket of the branch is created and made ready; it expires `minutes` whole minutes after its creation. */
async function createAndReady(minutes: number): Promise<void> {
  clock.advance(1_000);
  const created = await t.request('POST', '/v1/tickets', { key: tenant.liveKey, body: {} });
  assert.equal(created.status, 201, created.text);
  assert.equal(Number(await expiresAt(created.body.id)), clock.now() + minutes * 60_000);
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key: tenant.liveKey });
  assert.equal(ready.status, 200, ready.text);
  assert.equal((await t.request('GET', `/v1/tickets/${created.body.id}`, { key: tenant.liveKey })).status, 200);
}

const ladder = (seconds: number[]) =>
  seconds.map((after_seconds) => ({ after_seconds, channels: ['push', 'page'], sms: 'never', call_out: true }));

test('every branch setting at its bounds, and fractions within bounds, still lets the branch create and ready tickets', async () => {
  const cases: { body: Record<string, unknown>; expiryHours: number; minutes: number }[] = [
    { body: { expiry_hours: 0.25, reminder_delay_seconds: 30, reminder_count: 5 }, expiryHours: 0.25, minutes: 15 },
    { body: { expiry_hours: 72, reminder_delay_seconds: 3600, reminder_count: 0 }, expiryHours: 72, minutes: 72 * 60 },
    // The report of issue 24: 200, then every create of the branch answered 500 on PostgreSQL.
    { body: { expiry_hours: 1.0000001 }, expiryHours: 1, minutes: 60 },
    { body: { expiry_hours: 0.3, reminder_count: 1 }, expiryHours: 0.3, minutes: 18 },
    { body: { expiry_hours: 0.2500001 }, expiryHours: 0.25, minutes: 15 },
    { body: { expiry_hours: 71.99999 }, expiryHours: 72, minutes: 72 * 60 },
    { body: { expiry_hours: 1 / 3, escalation_ladder: ladder([30, 60, 90, 120, 7200]) }, expiryHours: 20 / 60, minutes: 20 },
    {
      body: {
        expiry_hours: 2.675,
        name: 'N'.repeat(100),
        escalation_ladder: null,
        voice: { enabled: false, language: 'ar' },
        customer_page: { language: 'ar', messages: { waiting: 'w'.repeat(280), ready: 'r'.repeat(280), closed: '' }, phone_country: 'gb' },
        sms_enabled: false,
      },
      expiryHours: 161 / 60,
      minutes: 161,
    },
  ];
  for (const { body, expiryHours, minutes } of cases) {
    const res = await patch(body);
    assert.equal(res.status, 200, `${JSON.stringify(body)}: ${res.text}`);
    assert.equal(res.body.expiry_hours, expiryHours, JSON.stringify(body));
    assert.equal((await t.request('GET', '/v1/branch', { key: tenant.liveKey })).body.expiry_hours, expiryHours);
    await createAndReady(minutes);
  }
});

test('settings that are whole numbers refuse fractions with a problem and keep their value', async () => {
  assert.equal((await patch({ reminder_delay_seconds: 60, reminder_count: 2, escalation_ladder: null })).status, 200);
  for (const [body, pointer] of [
    [{ reminder_delay_seconds: 30.5 }, '/reminder_delay_seconds'],
    [{ reminder_count: 1.5 }, '/reminder_count'],
    [{ escalation_ladder: ladder([45.5]) }, '/escalation_ladder/0/after_seconds'],
  ] as const) {
    const res = await patch(body);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'validation-failed');
    assert.ok(
      res.body.errors?.some((e: { pointer: string }) => e.pointer === pointer),
      res.text,
    );
  }
  const branch = (await t.request('GET', '/v1/branch', { key: tenant.liveKey })).body;
  assert.deepEqual([branch.reminder_delay_seconds, branch.reminder_count, branch.escalation_ladder], [60, 2, null]);
});

test('a fractional expiry stored before it was rounded still lets the branch create tickets', async () => {
  await t.app.services.db.write((tx) =>
    tx.run('UPDATE branches SET settings = $2 WHERE id = $1', [tenant.branchId, JSON.stringify({ expiry_hours: 1.0000001 })]),
  );
  clock.advance(60_000); // past the create path's copy of the branch, as another node's change would be
  await createAndReady(60);
});
