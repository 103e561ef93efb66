// Receivers that keep failing: the schedule ends, endpoints failing for 3 days are disabled with
// a reason, disabling or deleting by hand stops delivery, and timeouts are attempts like others.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startWebhookWorld, createEndpoint, createTicket, deliveriesOf, type WebhookWorld } from '../helpers/webhooks.ts';
import type { Tenant } from '../helpers/app.ts';
import { RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule.ts';

const H = 3600_000;
let w: WebhookWorld;
let tenant: Tenant;
before(async () => {
  w = await startWebhookWorld();
});
after(() => w.close());
beforeEach(async () => {
  tenant = await w.t.newTenant();
  w.receiver.deliveries.length = 0;
  w.receiver.answer = () => ({ status: 500 });
});

const run = (): Promise<number> => w.t.app.runner.runOnce();
// Deliveries for this test's branch: earlier tests may leave retries that come due later.
const mine = () => w.receiver.deliveries.filter((d) => d.event?.branch === tenant.branchId);
const endpoint = async () => {
  const e = await createEndpoint(w.t, { url: `${w.receiver.url}/hook` }, tenant.testKey);
  w.receiver.secrets = [e.secret];
  return e;
};
const getEndpoint = async (id: string) => (await w.t.request('GET', `/v1/webhook_endpoints/${id}`, { key: tenant.testKey })).body;

/** Walks the clock through the whole schedule, running due jobs after each step. */
async function walkSchedule(): Promise<void> {
  for (const delay of RETRY_DELAYS_MS) {
    w.clock.advance(delay * 1.1 + 1000);
    await run();
  }
}

test('after 8 failed attempts the delivery has failed and nothing more is tried', async () => {
  const e = await endpoint();
  await createTicket(w.t, tenant.testKey);
  await run();
  await walkSchedule();
  assert.equal(mine().length, 8);
  const [delivery] = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.equal(delivery.status, 'failed');
  assert.equal(delivery.attempt_count, 8);
  assert.equal(delivery.next_attempt_at, null);
  w.clock.advance(48 * H);
  await run();
  assert.equal(mine().length, 8);
  assert.equal((await getEndpoint(e.id)).disabled, false, 'about 28 h of failures is not 3 days');
});

test('an endpoint that failed every attempt for 3 days is disabled, with the reason shown', async () => {
  const e = await endpoint();
  const started = w.clock.now();
  // A ticket a day, every delivery failing.
  for (let day = 0; day < 3; day++) {
    await createTicket(w.t, tenant.testKey);
    await run();
    for (let h = 0; h < 24; h++) {
      w.clock.advance(H);
      await run();
    }
  }
  await createTicket(w.t, tenant.testKey);
  await run();
  const got = await getEndpoint(e.id);
  assert.equal(got.disabled, true);
  assert.equal(got.disabled_reason, `Every delivery attempt failed for 3 days (since ${new Date(started).toISOString()}).`);
  const deliveries = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.ok(
    deliveries.every((d) => d.status === 'failed'),
    'pending deliveries fail with the endpoint',
  );
  const before = mine().length;
  w.clock.advance(24 * H);
  await run();
  assert.equal(mine().length, before);
});

test('one success restarts the 3-day clock', async () => {
  const e = await endpoint();
  await createTicket(w.t, tenant.testKey);
  await run();
  w.clock.advance(2 * 24 * H);
  w.receiver.answer = () => ({ status: 200 });
  await createTicket(w.t, tenant.testKey);
  await run();
  w.receiver.answer = () => ({ status: 500 });
  w.clock.advance(2 * 24 * H);
  await createTicket(w.t, tenant.testKey);
  await run();
  assert.equal((await getEndpoint(e.id)).disabled, false);
});

test('disabling by hand fails pending deliveries; deleting removes the log and pending jobs end quietly', async () => {
  const e = await endpoint();
  await createTicket(w.t, tenant.testKey);
  await run();
  assert.equal((await deliveriesOf(w.t, e.id, tenant.testKey))[0].status, 'pending');
  await w.t.request('PATCH', `/v1/webhook_endpoints/${e.id}`, { key: tenant.testKey, body: { disabled: true } });
  const [failed] = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.equal(failed.status, 'failed');
  assert.equal(failed.last_error, 'endpoint disabled');
  assert.equal((await w.t.request('POST', `/v1/webhook_deliveries/${failed.id}/retry`, { key: tenant.testKey })).status, 409);

  const other = await endpoint();
  await createTicket(w.t, tenant.testKey);
  await run();
  const [pending] = await deliveriesOf(w.t, other.id, tenant.testKey);
  assert.equal((await w.t.request('DELETE', `/v1/webhook_endpoints/${other.id}`, { key: tenant.testKey })).status, 200);
  assert.equal((await w.t.request('GET', `/v1/webhook_deliveries/${pending.id}`, { key: tenant.testKey })).status, 404);
  const count = mine().length;
  w.clock.advance(H);
  await run();
  assert.equal(mine().length, count);
  const [job] = await w.t.app.services.db.query<{ done_at: number | null }>('SELECT done_at FROM jobs WHERE key = $1', [
    `deliver:${pending.event}:${other.id}`,
  ]);
  assert.notEqual(job!.done_at, null);
});

test('a receiver that is down is an attempt with an error and no status', async () => {
  const e = await createEndpoint(w.t, { url: 'http://127.0.0.1:1/nothing-listens' }, tenant.testKey);
  await createTicket(w.t, tenant.testKey);
  await run();
  const [delivery] = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.equal(delivery.status, 'pending');
  assert.equal(delivery.attempts[0].response_status, null);
  assert.match(delivery.attempts[0].error, /ECONNREFUSED/);
});

test('a delivery whose event has been swept (30 days) fails at once, without counting against the receiver', async () => {
  const e = await endpoint();
  await createTicket(w.t, tenant.testKey);
  await run();
  const [pending] = await deliveriesOf(w.t, e.id, tenant.testKey);
  await w.t.app.services.db.write((tx) => tx.run('DELETE FROM events WHERE id = $1', [pending.event]));
  await w.t.app.services.db.write((tx) => tx.run('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1', [e.id]));
  w.clock.advance(10_000);
  await run();
  const [gone] = await deliveriesOf(w.t, e.id, tenant.testKey);
  assert.equal(gone.status, 'failed');
  assert.equal(gone.next_attempt_at, null);
  assert.match(gone.attempts.at(-1).error, /event no longer exists/);
  const [row] = await w.t.app.services.db.query<{ failing_since: number | null }>(
    'SELECT failing_since FROM webhook_endpoints WHERE id = $1',
    [e.id],
  );
  assert.equal(row!.failing_since, null);
  assert.equal(mine().length, 1, 'nothing was sent');
});
