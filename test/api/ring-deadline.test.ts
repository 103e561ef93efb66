// The in-line ring is bounded by RING_DEADLINE_MS: a channel that hangs does not hold the ready
// answer, which says what was reached by then; the ring's outbox job finishes it later, and no
// channel delivers the ring twice (the push service and the SMS provider count what they got; a
// push sent again after a node died is one alert on the phone).
//
// "At the deadline" is shown by orderings, not by a stopwatch (a wall-clock bound failed on a
// loaded machine): the test's page hears the ring's AbortSignal, which the ringer fires when
// RING_DEADLINE_MS has passed (decisions 0006, 0029), and the hanging push service or SMS provider
// holds its request until the test releases it. An answer after the page heard the deadline and
// before the release is an answer at the deadline. ANSWER_BOUND_MS only keeps a ringer that waits
// past the deadline from hanging the test: it is far beyond what a loaded machine takes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { TestPushService } from '../helpers/push-service.ts';
import { FakeSmsProvider } from '../helpers/sms-provider.ts';
import { PushDevice } from '../helpers/push-device.ts';
import { RingerStandIn } from '../helpers/tickets.ts';
import { eventually } from '../helpers/eventually.ts';
import { createApp } from '../../src/app.ts';
import type { Channel } from '../../src/channels/ringer.ts';
import type { ChannelAttempt, RingRequest } from '../../src/core/ring.ts';

const DEADLINE_MS = 1000;
const JOB_DUE_MS = DEADLINE_MS + 5_000;
const ANSWER_BOUND_MS = 30_000;

/**
 * A customer page that is open for some tickets and confirms at once, once per ring; for
 * `asleep` tickets it is open but never confirms (a locked phone), so it answers only at the deadline.
 * `cut` holds the tickets whose ring told the page that the deadline passed (its signal aborted).
 */
class OpenPage implements Channel {
  readonly name = 'page' as const;
  readonly open = new Set<string>();
  readonly asleep = new Set<string>();
  readonly shown = new Map<string, number>();
  readonly cut = new Set<string>();
  async ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    signal.addEventListener('abort', () => this.cut.add(request.ticket.id), { once: true });
    if (this.asleep.has(request.ticket.id)) {
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve({ channel: 'page', delivered: false, detail: 'no confirmation' }), { once: true }),
      );
    }
    if (!this.open.has(request.ticket.id)) return { channel: 'page', delivered: false, detail: 'no open page' };
    if (!this.shown.has(request.ringId)) this.shown.set(request.ringId, 1);
    return { channel: 'page', delivered: true };
  }
}

let t: TestApp;
let push: TestPushService;
let sms: FakeSmsProvider;
let biz: Tenant;
const page = new OpenPage();
const ringers = new RingerStandIn();
const clock = new FakeClock();

before(async () => {
  push = await new TestPushService().start();
  sms = await new FakeSmsProvider().start();
  // The test's page takes the place of the live one.
  t = await startTestApp({
    clock,
    env: { PUSH_ALLOW_INSECURE_ENDPOINTS: 'true', RING_DEADLINE_MS: String(DEADLINE_MS), ...sms.env() },
    ringChannels: [page],
    ringer: ringers.around,
  });
  biz = await t.newTenant({ plan: 'business' });
});
after(async () => {
  await t.close();
  await push.close();
  await sms.close();
});

async function ticketWithHangingPush(key: string, body: Record<string, unknown> = {}) {
  const ticket = (await t.request('POST', '/v1/tickets', { key, body })).body;
  const sub = push.subscribe('hang');
  const res = await fetch(`${ticket.url.replace('http://localhost:3000', t.url)}/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sub.json),
  });
  assert.equal(res.status, 201);
  return { ticket, sub };
}

async function ringRow(ticketId: string) {
  const rows = await t.app.services.db.query<{ completed_at: number | null; result: string | null }>(
    'SELECT completed_at, result FROM rings WHERE ticket_id = $1 ORDER BY seq',
    [ticketId],
  );
  return rows.at(-1)!;
}

/**
 * The ready's answer, whether the page had heard the deadline when it came, and the least time it
 * took (a lower bound holds on any machine: load only makes a timer late); a ready held past
 * ANSWER_BOUND_MS fails.
 */
async function readyAnswer(key: string, id: string) {
  let bound: NodeJS.Timeout | undefined;
  const held = new Promise<never>((_, reject) => {
    bound = setTimeout(
      () => reject(new Error(`no answer to the ready in ${ANSWER_BOUND_MS / 1000} s: the ring waited past its deadline`)),
      ANSWER_BOUND_MS,
    );
  });
  const started = performance.now();
  try {
    const res = await Promise.race([t.request('POST', `/v1/tickets/${id}/ready`, { key }), held]);
    return { res, afterDeadline: page.cut.has(id), ms: performance.now() - started };
  } finally {
    clearTimeout(bound);
  }
}

test('a hanging push service: ready answers at the deadline with the page, the job later records push, one push sent', async () => {
  const { ticket, sub } = await ticketWithHangingPush(t.tenant.testKey);
  page.open.add(ticket.id);
  const { res, afterDeadline, ms } = await readyAnswer(t.tenant.testKey, ticket.id);
  assert.equal(res.status, 200);
  // The push is held until released: an answer at all proves the deadline cut it, and the page
  // hearing the deadline first proves the ready waited for the push until then.
  assert.equal(push.requests.get(sub.id), 1, 'answered while the push was still held');
  assert.ok(afterDeadline, 'the ringer waited for the push until the deadline');
  assert.ok(ms >= DEADLINE_MS - 20, `not before the deadline: answered in ${ms.toFixed(0)} ms`);
  assert.deepEqual([res.body.rang, res.body.channel_used], [true, 'page'], 'what was reached by the deadline');
  assert.equal((await ringRow(ticket.id)).completed_at, null, 'the ring is left to its job');
  await push.waitForRequests(sub, 1);

  // The job runs while the push is still in flight: it waits for that send instead of sending again.
  clock.advance(JOB_DUE_MS);
  const job = t.app.runner.runOnce();
  push.release();
  await job;
  const row = await ringRow(ticket.id);
  assert.notEqual(row.completed_at, null);
  const result = JSON.parse(row.result!);
  assert.equal(result.channel_used, 'push', 'the push service accepted it after the deadline');
  assert.deepEqual(result.channels.map((c: any) => [c.channel, c.delivered]).sort(), [
    ['display', false],
    ['page', true],
    ['push', true],
  ]);
  assert.equal(push.requests.get(sub.id), 1, 'one push, not two');
  assert.equal(push.pushesFor(sub).length, 1);
  const events = await t.request('GET', '/v1/events?type=ticket.rung');
  assert.equal(events.body.data.filter((e: any) => e.data.object.id === ticket.id).length, 1, 'one ticket.rung event for the ring');
});

test('a hanging SMS provider: ready says "none" by the deadline, the job records the SMS, one message sent', async () => {
  const ticket = (await t.request('POST', '/v1/tickets', { key: biz.liveKey, body: { customer_phone: '+14155550199' } })).body;
  sms.reply = 'hang';
  const sent = sms.messages.length;
  const { res } = await readyAnswer(biz.liveKey, ticket.id);
  sms.reply = 201;
  // The provider holds the message until released: the answer came at the deadline, without it.
  assert.deepEqual([res.body.rang, res.body.channel_used], [false, 'none']);
  await sms.waitForRequests(1);
  assert.equal(sms.messages.length, sent, 'the message was still held when the ready answered');
  clock.advance(JOB_DUE_MS);
  const job = t.app.runner.runOnce();
  sms.release();
  await job;
  const result = JSON.parse((await ringRow(ticket.id)).result!);
  assert.deepEqual([result.rang, result.channel_used], [true, 'sms']);
  assert.equal(sms.requests, 1, 'the job did not send a second SMS');
  assert.equal(sms.messages.length, 1);
});

test('a page that never confirms leaves time for the SMS within the deadline', async () => {
  const ticket = (await t.request('POST', '/v1/tickets', { key: biz.liveKey, body: { customer_phone: '+14155550142' } })).body;
  page.asleep.add(ticket.id);
  const sent = sms.messages.length;
  const { res, afterDeadline } = await readyAnswer(biz.liveKey, ticket.id);
  assert.deepEqual([res.body.rang, res.body.channel_used], [true, 'sms']);
  assert.ok(afterDeadline, 'the SMS went once the page had been told its share of the deadline was up');
  assert.equal(sms.messages.length, sent + 1);
  assert.notEqual((await ringRow(ticket.id)).completed_at, null, 'nothing left for the job');
});

/** What a node that died leaves behind: its claim, still `sending`. The next node runs the ring job past the stale limit. */
async function otherNodeRunsJobsAfter(ms: number): Promise<void> {
  clock.advance(ms);
  const other = await createApp(t.app.services.config, { clock });
  try {
    await other.runner.runOnce();
  } finally {
    await other.close();
  }
}

test('a node that died after the push service accepted the ring: the next node sends it again, records "push", and the phone alerts once', async () => {
  const { ticket, sub } = await ticketWithHangingPush(t.tenant.testKey);
  const { res } = await readyAnswer(t.tenant.testKey, ticket.id);
  assert.equal(res.body.channel_used, 'none', 'nothing reached by the deadline');
  await push.waitForRequests(sub, 1);
  push.setReply(sub, 201);
  // The claim is still "sending" and nobody will settle it; 31 s is past its stale limit (3 × 10 s).
  await otherNodeRunsJobsAfter(31_000);
  const result = JSON.parse((await ringRow(ticket.id)).result!);
  assert.deepEqual([result.rang, result.channel_used], [true, 'push'], 'reached, as the phone knows: never "none"');
  assert.match(result.channels.find((c: any) => c.channel === 'push').detail, /re-sent/);
  const pushes = push.pushesFor(sub);
  assert.equal(pushes.length, 2, 'sent again: nobody could know the first one arrived');
  const device = new PushDevice();
  for (const p of pushes) await device.push(p.payload);
  assert.equal(device.alerts.length, 1, 'the phone alerts once for the ring');
  push.release();
});

test('a node that died mid-SMS: the next node never sends it again, and the ring says "unknown", not "none"', async () => {
  const ticket = (await t.request('POST', '/v1/tickets', { key: biz.liveKey, body: { customer_phone: '+14155550123' } })).body;
  const before = sms.requests;
  sms.reply = 'hang';
  const { res } = await readyAnswer(biz.liveKey, ticket.id);
  assert.deepEqual([res.body.rang, res.body.channel_used], [false, 'none'], 'nothing reached by the deadline');
  await sms.waitForRequests(before + 1);
  sms.reply = 201;
  await otherNodeRunsJobsAfter(31_000);
  const result = JSON.parse((await ringRow(ticket.id)).result!);
  assert.deepEqual([result.rang, result.channel_used], [false, 'unknown']);
  const sent = result.channels.find((c: any) => c.channel === 'sms');
  assert.equal(sent.delivered, null);
  assert.match(sent.detail, /unknown/);
  assert.equal(sms.requests, before + 1, 'never sent twice');
  const events = await t.request('GET', '/v1/events?type=ticket.rung', { key: biz.liveKey });
  const rung = events.body.data.find((e: any) => e.data.object.id === ticket.id);
  assert.equal(rung.data.ring.channel_used, 'unknown');
  sms.release();
});

test("the ring job's last try does not record a ring while a send is still in flight", async () => {
  const ticket = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  let sending = true;
  const attempt: ChannelAttempt = { channel: 'push', delivered: true, detail: 'accepted' };
  ringers.use({
    ring: async () =>
      sending
        ? { rang: false, channel_used: 'none', call_out_loud: false, attempts: [], complete: false, sending: true }
        : { rang: true, channel_used: 'push', call_out_loud: false, attempts: [attempt], complete: true },
  });
  try {
    await t.request('POST', `/v1/tickets/${ticket.id}/ready`);
    clock.advance(JOB_DUE_MS);
    for (let i = 0; i < 6; i++) {
      await t.app.runner.runOnce();
      clock.advance(5_000);
    }
    assert.equal((await ringRow(ticket.id)).completed_at, null, 'six tries, and the send is still in flight: the ring stays open');
    sending = false;
    await t.app.runner.runOnce();
    const result = JSON.parse((await ringRow(ticket.id)).result!);
    assert.deepEqual([result.rang, result.channel_used], [true, 'push']);
  } finally {
    ringers.restore();
  }
});

test('a ticket collected while its push is still in flight: the ring records the push that reached the phone, not "none", and nothing more is sent', async () => {
  const { ticket, sub } = await ticketWithHangingPush(t.tenant.testKey);
  const { res } = await readyAnswer(t.tenant.testKey, ticket.id);
  assert.equal(res.body.channel_used, 'none', 'nothing reached by the deadline');
  await push.waitForRequests(sub, 1);
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/collect`)).status, 200);

  // The ring's job comes while the push is still in flight: it waits for it.
  clock.advance(JOB_DUE_MS);
  await t.app.runner.runOnce();
  assert.equal((await ringRow(ticket.id)).completed_at, null, 'a send in flight keeps the ring open');
  push.release();
  const sends = (): Promise<Array<{ status: string }>> =>
    t.app.services.db.query('SELECT status FROM ring_sends WHERE ticket_id = $1', [ticket.id]);
  await eventually(async () => (await sends()).some((s) => s.status === 'delivered'), 'the push send to be recorded');

  clock.advance(5_000);
  await t.app.runner.runOnce();
  const result = JSON.parse((await ringRow(ticket.id)).result!);
  assert.deepEqual([result.rang, result.channel_used], [true, 'push'], 'the phone got the ring before the collect');
  assert.equal(push.requests.get(sub.id), 1, 'nothing sent to a closed ticket');
  const events = await t.request('GET', '/v1/events?type=ticket.rung');
  const rung = events.body.data.filter((e: any) => e.data.object.id === ticket.id);
  assert.equal(rung.length, 1);
  assert.equal(rung[0].data.ring.channel_used, 'push');
  assert.deepEqual(await sends(), [], "the closed ticket's send records go once its ring is recorded");
});
