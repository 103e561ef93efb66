// POST /v1/test_helpers/tickets/{id}/customer/{action}: the customer's actions in test mode,
// with the same effects (ticket fields, events, live updates) as the customer page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openPage } from '../helpers/live.ts';
import { SIMULATED_PUSH_ENDPOINT, simulatedPushSubscription } from '../../src/channels/simulated-push.ts';
import { endpointProblem } from '../../src/domain/push-subscription.ts';
import { upsertPushSubscription } from '../../src/store/push-subscriptions.ts';
import { SimulatedClients } from '../../src/realtime/simulated-clients.ts';
import { presenceScopes } from '../../src/realtime/presence.ts';
import { getTicket } from '../../src/store/tickets.ts';
import type { Ticket } from '../../src/core/ticket.ts';
import { eventually } from '../helpers/eventually.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const create = async (key?: string) => (await t.request('POST', '/v1/tickets', { key, body: {} })).body;
const helper = (id: string, action: string, body?: unknown, key?: string) =>
  t.request('POST', `/v1/test_helpers/tickets/${id}/customer/${action}`, { body, key });
const eventsOf = async (id: string, type: string) =>
  (await t.request('GET', `/v1/events?type=${type}&limit=100`)).body.data.filter((e: any) => e.data.object.id === id);

test('a live key gets 403 forbidden, whatever it sends, and nothing changes', async () => {
  const tk = await create(t.tenant.liveKey);
  for (const [action, body] of [
    ['view', undefined],
    ['snooze', { minutes: 600 }],
    ['nonsense', { x: 1 }],
    ['subscribe', undefined],
    ['open_page', { minutes: 5 }],
  ] as const) {
    const r = await helper(tk.id, action, body, t.tenant.liveKey);
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'forbidden');
  }
  const after = await t.request('GET', `/v1/tickets/${tk.id}`, { key: t.tenant.liveKey });
  assert.equal(after.body.customer.viewed_at, null);
  assert.equal(after.body.customer.notifications, 'none');
  const board = (await t.request('POST', '/v1/displays', { key: t.tenant.liveKey, body: {} })).body;
  const connect = await t.request('POST', `/v1/test_helpers/displays/${board.id}/connect`, { key: t.tenant.liveKey, body: {} });
  assert.equal(connect.status, 403);
  assert.equal(connect.body.code, 'forbidden');
  assert.equal(t.app.live.simulated.size, 0);
  const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`, { key: t.tenant.liveKey });
  assert.deepEqual([ready.body.rang, ready.body.channel_used, ready.body.call_out_loud], [false, 'none', false]);
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

// Every answer the integrator guide shows, produced with a test key and the test helpers only.

const ready = async (id: string, key?: string) => {
  const r = await t.request('POST', `/v1/tickets/${id}/ready`, { key });
  assert.equal(r.status, 200, r.text);
  return r.body;
};
const rungChannels = async (id: string, key?: string) => {
  const [ev] = (await t.request('GET', '/v1/events?type=ticket.rung&limit=100', { key })).body.data.filter(
    (e: any) => e.data.object.id === id,
  );
  return ev.data.ring.channels as Array<{ channel: string; delivered: boolean | null; detail?: string }>;
};
const answer = (r: any) => [r.rang, r.channel_used, r.call_out_loud];

test('subscribe reaches the customer through the simulated push service: ready answers "push", and the ring says it was simulated', async () => {
  const tk = await create();
  assert.equal((await helper(tk.id, 'subscribe')).status, 200);
  const r = await ready(tk.id);
  assert.deepEqual(answer(r), [true, 'push', false]);
  assert.equal(r.ticket.rings, 1);
  const push = (await rungChannels(tk.id)).find((c) => c.channel === 'push');
  assert.deepEqual(push, { channel: 'push', delivered: true, detail: 'simulated (test mode)' });
  // A second subscribe keeps one subscription; a ring again still reaches it once.
  await helper(tk.id, 'subscribe');
  const n = await t.app.services.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM push_subscriptions WHERE ticket_id = $1', [tk.id]);
  assert.equal(Number(n[0]!.n), 1);
});

test('open_page keeps a simulated page open: ready answers "page", and the first view is recorded', async () => {
  const tk = await create();
  const opened = await helper(tk.id, 'open_page', { minutes: 5 });
  assert.equal(opened.status, 200, opened.text);
  assert.ok(opened.body.customer.viewed_at);
  assert.equal((await eventsOf(tk.id, 'ticket.customer_viewed')).length, 1);
  const r = await ready(tk.id);
  assert.deepEqual(answer(r), [true, 'page', false]);
  assert.deepEqual(
    (await rungChannels(tk.id)).find((c) => c.channel === 'page'),
    { channel: 'page', delivered: true, detail: 'simulated (test mode)' },
  );
});

test('a test ticket with a phone on a business-plan branch: ready answers "sms" (simulated, no provider)', async () => {
  const biz = await t.newTenant({ plan: 'business' });
  const tk = (await t.request('POST', '/v1/tickets', { key: biz.testKey, body: { customer_phone: '+33612345678' } })).body;
  const r = await ready(tk.id, biz.testKey);
  assert.deepEqual(answer(r), [true, 'sms', false]);
  assert.deepEqual(
    (await rungChannels(tk.id, biz.testKey)).find((c) => c.channel === 'sms'),
    { channel: 'sms', delivered: true, detail: 'simulated (test mode)' },
  );
});

test('nobody to reach: ready answers "none"', async () => {
  const tk = await create();
  assert.deepEqual(answer(await ready(tk.id)), [false, 'none', false]);
});

test('a connected simulated board with voice calls the number out: call_out_loud true; not for a queue it does not show', async () => {
  const tenant = await t.newTenant();
  await t.request('POST', '/v1/queues', { key: tenant.testKey, body: { name: 'B' } });
  const board = (await t.request('POST', '/v1/displays', { key: tenant.testKey, body: { queues: ['A'] } })).body;
  const connected = await t.request('POST', `/v1/test_helpers/displays/${board.id}/connect`, { key: tenant.testKey, body: { minutes: 5 } });
  assert.equal(connected.status, 200, connected.text);
  assert.equal(connected.body.id, board.id);
  const a = (await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { queue: 'A' } })).body;
  assert.deepEqual(answer(await ready(a.id, tenant.testKey)), [false, 'none', true]);
  assert.deepEqual(
    (await rungChannels(a.id, tenant.testKey)).find((c) => c.channel === 'display'),
    { channel: 'display', delivered: true, detail: 'simulated (test mode)' },
  );
  const b = (await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { queue: 'B' } })).body;
  assert.deepEqual(answer(await ready(b.id, tenant.testKey)), [false, 'none', false]);
  // With the customer subscribed too: both at once, as the guide's sample answer shows.
  const both = (await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { queue: 'A' } })).body;
  await helper(both.id, 'subscribe', undefined, tenant.testKey);
  assert.deepEqual(answer(await ready(both.id, tenant.testKey)), [true, 'push', true]);
});

test('a simulated board of a display with voice off is connected but calls nothing out', async () => {
  const tenant = await t.newTenant();
  const board = (await t.request('POST', '/v1/displays', { key: tenant.testKey, body: { voice: false } })).body;
  assert.equal((await t.request('POST', `/v1/test_helpers/displays/${board.id}/connect`, { key: tenant.testKey })).status, 200);
  const tk = (await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: {} })).body;
  assert.deepEqual(answer(await ready(tk.id, tenant.testKey)), [false, 'none', false]);
});

test("the helpers refuse what is not theirs: another branch's display, a deleted one, minutes out of range", async () => {
  const board = (await t.request('POST', '/v1/displays', { body: {} })).body;
  const other = await t.newTenant();
  assert.equal((await t.request('POST', `/v1/test_helpers/displays/${board.id}/connect`, { key: other.testKey })).status, 404);
  assert.equal((await t.request('POST', '/v1/test_helpers/displays/dsp_nope/connect')).status, 404);
  for (const minutes of [0, 61, 2.5]) {
    const r = await t.request('POST', `/v1/test_helpers/displays/${board.id}/connect`, { body: { minutes } });
    assert.equal(r.status, 422, `minutes ${minutes}`);
    const tk = await create();
    const p = await helper(tk.id, 'open_page', { minutes });
    assert.equal(p.status, 422, `open_page minutes ${minutes}`);
    assert.equal(p.body.errors[0].pointer, '/minutes');
  }
  await t.request('DELETE', `/v1/displays/${board.id}`);
  assert.equal((await t.request('POST', `/v1/test_helpers/displays/${board.id}/connect`)).status, 404);
});

test('the simulated push service never serves live mode, and no browser can subscribe to it', async () => {
  // A live ticket holding the simulated endpoint (which no route can give it) is refused, not reached.
  const live = await create(t.tenant.liveKey);
  const now = Date.now();
  const sub = { ...simulatedPushSubscription({ id: live.id, branchId: t.tenant.branchId, mode: 'test' }, now), mode: 'live' as const };
  await t.app.services.db.write((tx) => upsertPushSubscription(tx, sub));
  const r = await ready(live.id, t.tenant.liveKey);
  assert.deepEqual(answer(r), [false, 'none', false]);
  const push = (await rungChannels(live.id, t.tenant.liveKey)).find((c) => c.channel === 'push');
  assert.equal(push?.delivered, false);
  assert.match(push?.detail ?? '', /refused: the simulated push service serves test mode only/);
  assert.throws(() => simulatedPushSubscription({ id: live.id, branchId: t.tenant.branchId, mode: 'live' }, now));

  const tk = await create();
  const keys = {
    p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url'),
    auth: Buffer.alloc(16, 2).toString('base64url'),
  };
  const res = await fetch(`${t.url}${new URL(tk.url).pathname}/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ endpoint: SIMULATED_PUSH_ENDPOINT, keys }),
  });
  assert.equal(res.status, 422);
  const body = (await res.json()) as any;
  assert.ok(body.errors.some((e: any) => e.pointer === '/endpoint'));
  assert.equal(endpointProblem(SIMULATED_PUSH_ENDPOINT, true), 'endpoint must use https.');
});

test('a node keeps a bounded number of simulated pages: opening one more closes the one opened longest ago', async () => {
  const { services, hub, data, presence } = t.app.live;
  const clients = new SimulatedClients({ services, hub, data }, { max: 2 });
  const tickets: Ticket[] = [];
  for (let i = 0; i < 3; i++) {
    const tk = await create();
    tickets.push((await getTicket(services.db, t.tenant.branchId, 'test', tk.id))!);
    await clients.openPage(tickets[i]!, 5);
  }
  assert.equal(clients.size, 2);
  const open = async () => Promise.all(tickets.map(async (tk) => (await presence.members(presenceScopes.page(tk.id))).length));
  await eventually(async () => (await open())[0] === 0, 'the oldest page to leave presence');
  assert.deepEqual(await open(), [0, 1, 1]);
  // Reopening one moves it to the back of the line instead of adding a page.
  await clients.openPage(tickets[1]!, 5);
  assert.equal(clients.size, 2);
  await assert.rejects(clients.openPage({ ...tickets[0]!, mode: 'live' }, 5), /test mode only/);
  clients.close();
  assert.equal(clients.size, 0);
  await eventually(
    async () => (await presence.members(presenceScopes.page(tickets[2]!.id))).length === 0,
    'the closed page to leave presence',
  );
});
