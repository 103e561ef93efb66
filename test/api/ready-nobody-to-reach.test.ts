// A ready with nobody to reach (no page open, no board to speak, no push subscription, no SMS) is
// recorded complete with its transition (docs/decisions/0006-ring-delivery.md, "What a ready
// costs"): the same answer and events as a ring attempted after the commit, once, and nothing
// left for a job to finish. Anyone to reach, and the ring goes the usual two-phase way.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { presenceScopes } from '../../src/realtime/presence.ts';

let t: TestApp;
/** For a ring that must finish in-line: a deadline no loaded machine's SMS send comes near. */
let patient: TestApp;
const clock = new FakeClock();

before(async () => {
  t = await startTestApp({ clock, env: { RING_DEADLINE_MS: '50' } });
  patient = await startTestApp({ clock, env: { RING_DEADLINE_MS: '10000' } });
});
after(() => Promise.all([t.close(), patient.close()]));

async function created(key: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request('POST', '/v1/tickets', { key, body });
  assert.equal(res.status, 201, res.text);
  return res.body.id as string;
}

async function rungEvents(key: string, id: string): Promise<any[]> {
  const events = await t.request('GET', '/v1/events?type=ticket.rung&limit=100', { key });
  return events.body.data.filter((e: any) => e.data.object.id === id);
}

const ringJobs = (id: string) =>
  t.app.services.db.query<{ key: string; done_at: number | null }>("SELECT key, done_at FROM jobs WHERE kind = 'ring' AND key LIKE $1", [
    `ring:${id}:%`,
  ]);

/** Runs `fn` while a voice-on board showing every queue of the branch is connected (test mode). */
async function withBoard(branchId: string, fn: () => Promise<void>): Promise<void> {
  const board = presenceScopes.board(branchId, 'test');
  await t.app.live.presence.touch(board, 'board-1', { display: 'dsp_1', queues: [], voice: true }, 60_000);
  try {
    await fn();
  } finally {
    await t.app.live.presence.leave(board, 'board-1');
  }
}

test('nobody to reach: the answer, one ticket.rung with what each channel found, the ring complete, no ring job', async () => {
  const { testKey } = await t.newTenant();
  const id = await created(testKey);
  const res = await t.request('POST', `/v1/tickets/${id}/ready`, { key: testKey });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(
    { rang: res.body.rang, channel_used: res.body.channel_used, call_out_loud: res.body.call_out_loud },
    { rang: false, channel_used: 'none', call_out_loud: false },
  );
  assert.equal(res.body.ticket.status, 'ready');
  assert.equal(res.body.ticket.rings, 1);

  const rung = await rungEvents(testKey, id);
  assert.equal(rung.length, 1);
  assert.deepEqual(rung[0].data.ring.channels, [
    { channel: 'page', delivered: false, detail: 'no page open' },
    { channel: 'display', delivered: false, detail: 'no connected board with voice on shows this queue' },
  ]);
  assert.deepEqual(rung[0].data.object, res.body.ticket);
  const ready = (await t.request('GET', '/v1/events?type=ticket.ready&limit=100', { key: testKey })).body.data.filter(
    (e: any) => e.data.object.id === id,
  );
  assert.deepEqual(ready[0].data.object, res.body.ticket);

  const rings = await t.app.services.db.query<{ completed_at: number | null; result: string }>(
    'SELECT completed_at, result FROM rings WHERE ticket_id = $1',
    [id],
  );
  assert.equal(rings.length, 1);
  assert.notEqual(rings[0]!.completed_at, null);
  assert.equal(JSON.parse(rings[0]!.result).channel_used, 'none');
  assert.deepEqual(await ringJobs(id), []);

  // Long after the deadline nothing finishes it again.
  clock.advance(60_000);
  while ((await t.app.runner.runOnce()) > 0) {
    /* drain */
  }
  assert.equal((await rungEvents(testKey, id)).length, 1);
});

test('the same with an Idempotency-Key: the answer is stored with the transition and replayed', async () => {
  const { testKey } = await t.newTenant();
  const id = await created(testKey);
  const headers = { 'idempotency-key': `ready-${id}` };
  const first = await t.request('POST', `/v1/tickets/${id}/ready`, { key: testKey, headers });
  assert.equal(first.status, 200, first.text);
  const again = await t.request('POST', `/v1/tickets/${id}/ready`, { key: testKey, headers });
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.text, first.text);
  assert.equal((await rungEvents(testKey, id)).length, 1);
});

test('a page open: the ring is attempted after the commit, with its job, and the page is asked', async () => {
  const { testKey } = await t.newTenant();
  const id = await created(testKey);
  await t.app.live.presence.touch(presenceScopes.page(id), 'page-1', {}, 60_000);
  const res = await t.request('POST', `/v1/tickets/${id}/ready`, { key: testKey });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.channel_used, 'none');
  const rung = await rungEvents(testKey, id);
  assert.equal(rung.length, 1);
  assert.deepEqual(rung[0].data.ring.channels[0], {
    channel: 'page',
    delivered: false,
    detail: 'no confirmation from the page before the deadline',
  });
  const jobs = await ringJobs(id);
  assert.equal(jobs.length, 1);
  assert.notEqual(jobs[0]!.done_at, null, 'the in-line attempt completed the ring and its job');
  await t.app.live.presence.leave(presenceScopes.page(id), 'page-1');
});

test('a board with voice on showing the queue: the ring is attempted after the commit', async () => {
  const { testKey, branchId } = await t.newTenant();
  const id = await created(testKey);
  await withBoard(branchId, async () => {
    const res = await t.request('POST', `/v1/tickets/${id}/ready`, { key: testKey });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.call_out_loud, false);
    assert.equal((await ringJobs(id)).length, 1);
    const rung = await rungEvents(testKey, id);
    assert.equal(rung[0].data.ring.channels.find((c: any) => c.channel === 'display').detail, 'no board confirmed before the deadline');
  });
});

test('voice off for the branch: a connected board does not keep the ring from completing with the ready', async () => {
  const { testKey, liveKey, branchId } = await t.newTenant();
  assert.equal((await t.request('PATCH', '/v1/branch', { key: liveKey, body: { voice: { enabled: false } } })).status, 200);
  const id = await created(testKey);
  await withBoard(branchId, async () => {
    const res = await t.request('POST', `/v1/tickets/${id}/ready`, { key: testKey });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await ringJobs(id), []);
    const rung = await rungEvents(testKey, id);
    assert.equal(rung[0].data.ring.channels.find((c: any) => c.channel === 'display').detail, 'voice call-out is off for the branch');
  });
});

test('SMS to send (business plan, a phone): the ring is attempted after the commit', async () => {
  const { testKey } = await patient.newTenant({ plan: 'business' });
  const made = await patient.request('POST', '/v1/tickets', { key: testKey, body: { customer_phone: '+15555550100' } });
  assert.equal(made.status, 201, made.text);
  const id = made.body.id as string;
  const res = await patient.request('POST', `/v1/tickets/${id}/ready`, { key: testKey });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.channel_used, 'sms');
  const jobs = await patient.app.services.db.query("SELECT key FROM jobs WHERE kind = 'ring' AND key LIKE $1", [`ring:${id}:%`]);
  assert.equal(jobs.length, 1);
});

test('the look-ahead is asked while the rate limit is, not after it', async () => {
  const { testKey } = await t.newTenant();
  const id = await created(testKey);
  const limiter = t.app.shared.limiter;
  const presence = t.app.live.presence;
  const take = limiter.take.bind(limiter);
  const members = presence.members.bind(presence);
  const bucket = Promise.withResolvers<void>();
  let bucketAsked = false;
  let bucketAnswered = false;
  let askedBeforeBucketAnswered = false;
  limiter.take = async (...args) => {
    bucketAsked = true;
    await bucket.promise;
    bucketAnswered = true;
    return take(...args);
  };
  presence.members = async (scope) => {
    if (scope === presenceScopes.page(id) && !bucketAnswered) askedBeforeBucketAnswered = true;
    return members(scope);
  };
  try {
    const answer = t.request('POST', `/v1/tickets/${id}/ready`, { key: testKey });
    while (!bucketAsked) await new Promise((r) => setImmediate(r));
    bucket.resolve();
    assert.equal((await answer).status, 200);
    assert.ok(askedBeforeBucketAnswered, 'the page presence was asked before the bucket answered');
  } finally {
    bucket.resolve();
    limiter.take = take;
    presence.members = members;
  }
});
