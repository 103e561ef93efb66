// Reminders and snoozes (PRODUCT.md §2): durable jobs driven here by a fake clock and the job
// runner, exactly as the background worker runs them. What a customer and an integrator notice is
// the ticket's ring count and the `ticket.rung` events with their reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { createApp, type App } from '../../src/app.ts';

let t: TestApp;
const clock = new FakeClock();
const DELAY_S = 60;

before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

async function tenantWith(settings: Record<string, unknown>): Promise<Tenant> {
  const tenant = await t.newTenant();
  const res = await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: settings });
  assert.equal(res.status, 200, res.text);
  return tenant;
}

async function readyTicket(key: string): Promise<string> {
  const created = await t.request('POST', '/v1/tickets', { key, body: {} });
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key });
  assert.equal(ready.status, 200);
  return created.body.id;
}

/** The reasons of the ticket's rings, oldest first, from its ticket.rung events. */
async function ringReasons(key: string, id: string): Promise<string[]> {
  const events = await t.request('GET', '/v1/events?type=ticket.rung&limit=100', { key });
  return events.body.data
    .filter((e: any) => e.data.object.id === id)
    .map((e: any) => e.data.ring.reason)
    .reverse();
}

const customer = (key: string, id: string, action: string, body?: unknown) =>
  t.request('POST', `/v1/test_helpers/tickets/${id}/customer/${action}`, { key, body });

/** Moves the clock and runs every due job, as the worker would. */
async function at(ms: number, runner: App['runner'] = t.app.runner): Promise<void> {
  clock.advance(ms);
  while ((await runner.runOnce()) > 0) {
    /* jobs that became due while others ran */
  }
}

test('a reminder rings after the delay and stops at the reminder count', async () => {
  const tenant = await tenantWith({ reminder_delay_seconds: DELAY_S, reminder_count: 2 });
  const id = await readyTicket(tenant.testKey);
  await at(DELAY_S * 1000 - 1);
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready'], 'not before the delay');
  await at(1);
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready', 'reminder']);
  await at(DELAY_S * 1000);
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready', 'reminder', 'reminder']);
  await at(DELAY_S * 1000);
  await at(3600_000);
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready', 'reminder', 'reminder'], 'two reminders, no more');
  const ticket = await t.request('GET', `/v1/tickets/${id}`, { key: tenant.testKey });
  assert.equal(ticket.body.rings, 3);
});

test('no reminder once the customer acknowledged, nor for a collected ticket', async () => {
  const tenant = await tenantWith({ reminder_delay_seconds: DELAY_S, reminder_count: 3 });
  const acked = await readyTicket(tenant.testKey);
  const collected = await readyTicket(tenant.testKey);
  assert.equal((await customer(tenant.testKey, acked, 'acknowledge')).status, 200);
  assert.equal((await t.request('POST', `/v1/tickets/${collected}/collect`, { key: tenant.testKey })).status, 200);
  await at(DELAY_S * 1000);
  await at(DELAY_S * 1000);
  assert.deepEqual(await ringReasons(tenant.testKey, acked), ['ready']);
  assert.deepEqual(await ringReasons(tenant.testKey, collected), ['ready']);
});

test('a manual ring moves the next reminder a full delay later', async () => {
  const tenant = await tenantWith({ reminder_delay_seconds: DELAY_S, reminder_count: 1 });
  const id = await readyTicket(tenant.testKey);
  await at(30_000);
  assert.equal((await t.request('POST', `/v1/tickets/${id}/ring`, { key: tenant.testKey })).status, 200);
  await at(30_000);
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready', 'manual'], 'the delay counts from the last ring');
  await at(30_000);
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready', 'manual', 'reminder']);
});

test('a snooze rings once when it ends; a reminder waits for it', async () => {
  const quiet = await tenantWith({ reminder_count: 0 });
  const id = await readyTicket(quiet.testKey);
  assert.equal((await customer(quiet.testKey, id, 'snooze', { minutes: 5 })).status, 200);
  await at(5 * 60_000 - 1);
  assert.deepEqual(await ringReasons(quiet.testKey, id), ['ready']);
  await at(1);
  assert.deepEqual(await ringReasons(quiet.testKey, id), ['ready', 'snooze_end']);
  await at(60 * 60_000);
  assert.deepEqual(await ringReasons(quiet.testKey, id), ['ready', 'snooze_end'], 'once');

  const reminding = await tenantWith({ reminder_delay_seconds: DELAY_S, reminder_count: 1 });
  const other = await readyTicket(reminding.testKey);
  await customer(reminding.testKey, other, 'snooze', { minutes: 5 });
  await at(5 * 60_000);
  assert.deepEqual(await ringReasons(reminding.testKey, other), ['ready', 'snooze_end'], 'no reminder during the snooze');
  await at(DELAY_S * 1000);
  assert.deepEqual(await ringReasons(reminding.testKey, other), ['ready', 'snooze_end', 'reminder']);
});

test("a reminder falling due with the snooze's end waits for the snooze's ring, even while another worker holds that job", async () => {
  const tenant = await tenantWith({ reminder_delay_seconds: DELAY_S, reminder_count: 1 });
  const id = await readyTicket(tenant.testKey);
  assert.equal((await customer(tenant.testKey, id, 'snooze', { minutes: 2 })).status, 200);
  // Another worker has taken the snooze's job and not committed its ring yet.
  const { db } = t.app.services;
  const held = await db.run("UPDATE jobs SET locked_by = 'other-worker', locked_until = $2 WHERE kind = 'snooze_end' AND key LIKE $1", [
    `snooze:${id}:%`,
    clock.now() + 3600_000,
  ]);
  assert.equal(held, 1);
  await at(2 * 60_000 + DELAY_S * 1000); // both due: the snooze's end, and a delay after it
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready'], 'the reminder does not ring ahead of the snooze');
  await db.run("UPDATE jobs SET locked_by = NULL, locked_until = NULL WHERE kind = 'snooze_end' AND key LIKE $1", [`snooze:${id}:%`]);
  await at(0);
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready', 'snooze_end']);
  await at(DELAY_S * 1000);
  assert.deepEqual(await ringReasons(tenant.testKey, id), ['ready', 'snooze_end', 'reminder']);
});

test('a snooze replaced by a longer one rings only at the new end; "On my way" cancels it', async () => {
  const tenant = await tenantWith({ reminder_count: 0 });
  const replaced = await readyTicket(tenant.testKey);
  const answered = await readyTicket(tenant.testKey);
  await customer(tenant.testKey, replaced, 'snooze', { minutes: 5 });
  await customer(tenant.testKey, answered, 'snooze', { minutes: 5 });
  await at(60_000);
  await customer(tenant.testKey, replaced, 'snooze', { minutes: 10 });
  await customer(tenant.testKey, answered, 'acknowledge');
  await at(4 * 60_000);
  assert.deepEqual(await ringReasons(tenant.testKey, replaced), ['ready']);
  await at(6 * 60_000);
  assert.deepEqual(await ringReasons(tenant.testKey, replaced), ['ready', 'snooze_end']);
  assert.deepEqual(await ringReasons(tenant.testKey, answered), ['ready']);
});

test('a restart neither loses nor repeats reminders and snooze rings', async () => {
  const tenant = await tenantWith({ reminder_delay_seconds: DELAY_S, reminder_count: 1 });
  const reminded = await readyTicket(tenant.testKey);
  const snoozed = await readyTicket(tenant.testKey);
  await customer(tenant.testKey, snoozed, 'snooze', { minutes: 2 });

  // The first node stops with every job still pending; a new one starts on the same store.
  const config = t.app.services.config;
  await t.app.close();
  const second = await createApp(config, { clock });
  try {
    await at(DELAY_S * 1000, second.runner);
    await at(2 * 60_000, second.runner);
    await second.close();
    const third = await createApp(config, { clock });
    await at(DELAY_S * 1000, third.runner);
    await at(3600_000, third.runner);
    await third.close();
    const rows = await countRings(config);
    assert.deepEqual(rows.get(reminded), ['ready', 'reminder']);
    assert.deepEqual(rows.get(snoozed), ['ready', 'snooze_end', 'reminder']);
  } finally {
    await second.close();
  }
});

/** Reads the rings table of a store whose app is closed, through a short-lived app. */
async function countRings(config: App['services']['config']): Promise<Map<string, string[]>> {
  const app = await createApp(config, { clock });
  try {
    const rows = await app.services.db.query<{ ticket_id: string; reason: string }>(
      'SELECT ticket_id, reason FROM rings ORDER BY ticket_id, seq',
    );
    const out = new Map<string, string[]>();
    for (const r of rows) out.set(r.ticket_id, [...(out.get(r.ticket_id) ?? []), r.reason]);
    return out;
  } finally {
    await app.close();
  }
}
