// POST /v1/test_helpers/tickets/{id}/customer/{action}: the customer's actions in test mode,
// with the same effects (ticket fields, events, live updates) as the customer page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openPage } from '../helpers/live.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const create = async (key?: string) => (await t.request('POST', '/v1/tickets', { key, body: {} })).body;
const helper = (id: string, action: string, body?: unknown, key?: string) => t.request('POST', `/v1/test_helpers/tickets/${id}/customer/${action}`, { body, key });
const eventsOf = async (id: string, type: string) =>
  (await t.request('GET', `/v1/events?type=${type}&limit=100`)).body.data.filter((e: any) => e.data.object.id === id);

test('a live key gets 403 forbidden, whatever it sends, and nothing changes', async () => {
  const tk = await create(t.tenant.liveKey);
  for (const [action, body] of [['view', undefined], ['snooze', { minutes: 600 }], ['nonsense', { x: 1 }]] as const) {
    const r = await helper(tk.id, action, body, t.tenant.liveKey);
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'forbidden');
  }
  const after = await t.request('GET', `/v1/tickets/${tk.id}`, { key: t.tenant.liveKey });
  assert.equal(after.body.customer.viewed_at, null);
});

test('view records the first view once, with a ticket.customer_viewed event', async () => {
  const tk = await create();
  const first = await helper(tk.id, 'view');
  assert.equal(first.status, 200);
  assert.equal(first.body.object, 'ticket');
  assert.ok(first.body.customer.viewed_at);
  const second = await helper(tk.id, 'view');
  assert.equal(second.body.customer.viewed_at, first.body.customer.viewed_at);
  assert.equal((await eventsOf(tk.id, 'ticket.customer_viewed')).length, 1);
});

test('subscribe turns notifications on', async () => {
  const tk = await create();
  const r = await helper(tk.id, 'subscribe');
  assert.equal(r.status, 200);
  assert.equal(r.body.customer.notifications, 'push');
  assert.equal((await eventsOf(tk.id, 'ticket.customer_subscribed')).length, 1);
});

test('acknowledge and snooze answer a ring: 409 before ready, then recorded with their events', async () => {
  const tk = await create();
  for (const action of ['acknowledge', 'snooze']) {
    const early = await helper(tk.id, action);
    assert.equal(early.status, 409);
    assert.equal(early.body.code, 'ticket-state-conflict');
    assert.equal(early.body.ticket_status, 'created');
  }
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  const snoozed = await helper(tk.id, 'snooze', { minutes: 7 });
  assert.equal(snoozed.status, 200);
  assert.equal(Date.parse(snoozed.body.customer.snoozed_until) - Date.now() > 6 * 60_000, true);
  const [ev] = await eventsOf(tk.id, 'ticket.customer_snoozed');
  assert.equal(ev.data.minutes, 7);
  const ack = await helper(tk.id, 'acknowledge');
  assert.equal(ack.status, 200);
  assert.ok(ack.body.customer.acknowledged_at);
  assert.equal(ack.body.customer.snoozed_until, null);
  assert.equal((await eventsOf(tk.id, 'ticket.customer_acknowledged')).length, 1);
});

test('a snooze of 0 or 600 minutes, or minutes on another action, is 422 and changes nothing', async () => {
  const tk = await create();
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  for (const minutes of [0, 600, 31, -5]) {
    const r = await helper(tk.id, 'snooze', { minutes });
    assert.equal(r.status, 422, `minutes ${minutes}`);
    assert.equal(r.body.code, 'validation-failed');
    assert.equal(r.body.errors[0].pointer, '/minutes');
  }
  const r = await helper(tk.id, 'snooze', { minutes: 2.5 });
  assert.equal(r.status, 422);
  assert.equal((await helper(tk.id, 'view', { minutes: 5 })).status, 422);
  assert.equal((await helper(tk.id, 'snooze', { minutes: 5, extra: true })).status, 422);
  const now = await t.request('GET', `/v1/tickets/${tk.id}`);
  assert.equal(now.body.customer.snoozed_until, null);
  assert.equal((await eventsOf(tk.id, 'ticket.customer_snoozed')).length, 0);
});

test('actions on a closed ticket are 409 with its status', async () => {
  const tk = await create();
  await t.request('POST', `/v1/tickets/${tk.id}/collect`);
  for (const action of ['subscribe', 'acknowledge', 'snooze']) {
    const r = await helper(tk.id, action);
    assert.equal(r.status, 409, action);
    assert.equal(r.body.ticket_status, 'collected');
  }
});

test('an unknown action or ticket is 404; another branch cannot reach the ticket', async () => {
  const tk = await create();
  assert.equal((await helper(tk.id, 'dance')).status, 404);
  assert.equal((await helper('tk_nope', 'view')).status, 404);
  const other = await t.newTenant();
  const r = await helper(tk.id, 'view', undefined, other.testKey);
  assert.equal(r.status, 404);
});

test('it honours Idempotency-Key like every write', async () => {
  const tk = await create();
  const headers = { 'idempotency-key': `view-${tk.id}` };
  const a = await t.request('POST', `/v1/test_helpers/tickets/${tk.id}/customer/view`, { headers });
  const b = await t.request('POST', `/v1/test_helpers/tickets/${tk.id}/customer/view`, { headers });
  assert.equal(b.text, a.text);
  assert.equal(b.headers.get('idempotent-replayed'), 'true');
});

test('the open customer page sees what the helper did, as if the customer had', async () => {
  const tk = await create();
  const page = await openPage(t, tk.url);
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  await page.next('snapshot', (v) => v.state === 'ready');
  await helper(tk.id, 'acknowledge');
  const snap = await page.next('snapshot', (v) => v.state === 'acknowledged');
  assert.equal(snap.data.heading, 'See you at the counter');
  page.close();
});
