// A server killed in the middle of a ring (SIGKILL: nothing recorded after that instant) and
// started again: the ring's result must still be a true statement, and the customer's phone must
// get the ring exactly once (PRODUCT.md §2; decision 0007, "A sender that dies mid-send").
//
// The servers are real `readybell serve` processes on this run's store; the test app only
// observes (same store, no workers). Sends are bounded at 500 ms here (RING_SEND_TIMEOUT_MS), so a
// dead sender's claim is stale after 1.5 s instead of 30 s, and the ring job comes 1 s + 5 s
// after the ready: the schedule the restarted server has to get right is the real one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestPushService, type PushReply, type TestSubscription } from '../helpers/push-service.ts';
import { PushDevice } from '../helpers/push-device.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { eventually } from '../helpers/eventually.ts';

const ENV = { PUSH_ALLOW_INSECURE_ENDPOINTS: 'true', RING_DEADLINE_MS: '1000', RING_SEND_TIMEOUT_MS: '500', JOB_POLL_MS: '100' };

let t: TestApp;
let push: TestPushService;
const servers: ServerProcess[] = [];

before(async () => {
  push = await new TestPushService().start();
  // Real clock: the server processes run on real time, and the ring job's run_at must agree with it.
  t = await startTestApp({ env: ENV });
  push.expectedVapidKey = ((await (await fetch(`${t.url}/push/vapid.json`)).json()) as { public_key: string }).public_key;
});
after(async () => {
  for (const s of servers) await s.kill();
  await t.close();
  await push.close();
});

async function server(): Promise<ServerProcess> {
  const s = await startServerProcess(t, ENV);
  servers.push(s);
  return s;
}

async function ticketWithPush(reply: PushReply): Promise<{ ticket: any; sub: TestSubscription }> {
  const ticket = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const sub = push.subscribe(reply);
  const res = await fetch(`${ticket.url.replace(t.app.services.config.publicUrl, t.url)}/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sub.json),
  });
  assert.equal(res.status, 201);
  return { ticket, sub };
}

/** Marks the ticket ready on `s` and kills `s` as soon as its push reaches the push service. */
async function readyThenKill(s: ServerProcess, ticket: any, sub: TestSubscription): Promise<void> {
  void fetch(`${s.url}/v1/tickets/${ticket.id}/ready`, { method: 'POST', headers: { authorization: `Bearer ${t.tenant.testKey}` } }).catch(
    () => {},
  );
  await push.waitForRequests(sub, 1);
  await s.kill('SIGKILL');
}

async function sendClaims(ticketId: string): Promise<string[]> {
  const rows = await t.app.services.db.query<{ status: string }>(
    "SELECT status FROM ring_sends WHERE ticket_id = $1 AND channel = 'push'",
    [ticketId],
  );
  return rows.map((r) => r.status);
}

async function ringCompleted(ticketId: string): Promise<boolean> {
  const rows = await t.app.services.db.query<{ completed_at: number | null }>('SELECT completed_at FROM rings WHERE ticket_id = $1', [
    ticketId,
  ]);
  return rows.length === 1 && rows[0]!.completed_at !== null;
}

async function rungEvents(ticketId: string): Promise<any[]> {
  const events = await t.request('GET', '/v1/events?type=ticket.rung');
  return events.body.data.filter((e: any) => e.data.object.id === ticketId);
}

/** The restarted server finishes the ring; what it records and what the phone shows must agree. */
async function afterRestart(ticket: any, sub: TestSubscription) {
  const restarted = await server();
  try {
    await eventually(async () => await ringCompleted(ticket.id), 'the ring to be recorded after the restart', 20_000);
  } finally {
    await restarted.kill('SIGTERM');
  }
  const events = await rungEvents(ticket.id);
  assert.equal(events.length, 1, 'one ticket.rung for the ring');
  const ring = events[0].data.ring;
  const device = new PushDevice();
  for (const p of push.pushesFor(sub)) await device.push(p.payload);
  const shown = await t.request('GET', `/v1/tickets/${ticket.id}`);
  return { ring, device, ticket: shown.body, pushes: push.pushesFor(sub) };
}

test('the push service accepted the ring and the server died before recording it: after the restart, "push", and the phone alerts once', async () => {
  const { ticket, sub } = await ticketWithPush('hang');
  await readyThenKill(await server(), ticket, sub);
  assert.equal(push.pushesFor(sub).length, 1, 'the push service holds the ring for the phone');
  assert.deepEqual(await sendClaims(ticket.id), ['sending'], 'the dead server left its claim unsettled');
  push.setReply(sub, 201);
  push.release();

  const { ring, device, ticket: shown, pushes } = await afterRestart(ticket, sub);
  assert.deepEqual([ring.rang, ring.channel_used], [true, 'push'], 'the phone got it: "push", never "not reached"');
  assert.equal(ring.channels.find((c: any) => c.channel === 'push').delivered, true);
  assert.deepEqual(await sendClaims(ticket.id), ['delivered']);
  // Sent again, because nobody could know the first one arrived; the repeat is the same ring.
  assert.equal(pushes.length, 2);
  assert.ok(
    pushes.every((p) => p.payload.ring_id === ring.id && p.headers.topic === ticket.id),
    'same ring id and Topic both times',
  );
  assert.equal(device.shown.length, 2);
  assert.equal(device.alerts.length, 1, 'the phone alerted once');
  assert.deepEqual([shown.status, shown.rings, shown.customer.notifications], ['ready', 1, 'push']);
});

test('the server died after claiming the send and before the push service got it: after the restart the ring is sent, once', async () => {
  const { ticket, sub } = await ticketWithPush('lose');
  await readyThenKill(await server(), ticket, sub);
  assert.equal(push.pushesFor(sub).length, 0, 'the ring never reached the push service');
  assert.deepEqual(await sendClaims(ticket.id), ['sending']);
  push.setReply(sub, 201);

  const { ring, device, ticket: shown, pushes } = await afterRestart(ticket, sub);
  assert.deepEqual([ring.rang, ring.channel_used], [true, 'push']);
  assert.equal(pushes.length, 1);
  assert.equal(pushes[0]!.payload.ring_id, ring.id);
  assert.equal(device.alerts.length, 1);
  assert.deepEqual([shown.status, shown.rings], ['ready', 1]);
});
