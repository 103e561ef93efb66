// The ready answer tells the truth about the live channels: `rang`/`channel_used: "page"` only
// when an open page confirmed the ring, `call_out_loud` only when a board with voice on that
// shows the ticket's queue confirmed it spoke.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openBoard, openPage } from '../helpers/live.ts';
import { FakeClock } from '../helpers/clock.ts';
import { eventually } from '../helpers/eventually.ts';
import { presenceScopes } from '../../src/realtime/presence.ts';

let t: TestApp;
/**
 * "Answers at once" is shown against a deadline far longer than any answer on a loaded machine:
 * a ready that waited for it would take 10 s, and one that did not is well under half of that.
 */
let patient: TestApp;
const PATIENT_DEADLINE_MS = 10_000;
const clock = new FakeClock();
before(async () => {
  // A short deadline: a page or board that never answers costs the test 300 ms, not 2 s.
  t = await startTestApp({ clock, env: { RING_DEADLINE_MS: '300' } });
  patient = await startTestApp({ clock, env: { RING_DEADLINE_MS: String(PATIENT_DEADLINE_MS) } });
  const q = await t.request('POST', '/v1/queues', { body: { name: 'B' } });
  assert.equal(q.status, 201);
});
after(() => Promise.all([t.close(), patient.close()]));

async function ticket(queue = 'A', app = t): Promise<any> {
  const r = await app.request('POST', '/v1/tickets', { body: { queue } });
  assert.equal(r.status, 201);
  return r.body;
}

const ready = async (id: string, app = t) => {
  const r = await app.request('POST', `/v1/tickets/${id}/ready`);
  assert.equal(r.status, 200, r.text);
  return r.body;
};

const display = async (body: Record<string, unknown>, app = t) => {
  const r = await app.request('POST', '/v1/displays', { body });
  assert.equal(r.status, 201, r.text);
  return r.body;
};

test('with the page open, ready rings it: the ring event arrives and the answer says page', async () => {
  const tk = await ticket();
  const page = await openPage(t, tk.url);
  assert.equal(page.snapshot.status, 'created');
  const body = await ready(tk.id);
  assert.deepEqual([body.rang, body.channel_used], [true, 'page']);
  const ring = await page.next('ring');
  assert.match(ring.data.ring_id, /^rng_/);
  assert.equal(ring.data.reason, 'ready');
  const snap = await page.next('snapshot', (d) => d.status === 'ready');
  assert.equal(snap.data.state, 'ready');
  assert.equal(snap.data.ring.id, ring.data.ring_id);
  page.close();
});

test('with no page open, ready answers rang false, channel none, at once', async () => {
  const tk = await ticket('A', patient);
  const started = Date.now();
  const body = await ready(tk.id, patient);
  assert.deepEqual([body.rang, body.channel_used, body.call_out_loud], [false, 'none', false]);
  assert.ok(Date.now() - started < PATIENT_DEADLINE_MS / 2, 'no waiting for the deadline when nobody is there');
});

test('a page that is open but never confirms does not count as rung', async () => {
  const tk = await ticket();
  const page = await openPage(t, tk.url, { ack: false });
  const body = await ready(tk.id);
  assert.deepEqual([body.rang, body.channel_used], [false, 'none']);
  await page.next('ring');
  page.close();
});

test('a page closed before ready no longer counts', async () => {
  const tk = await ticket();
  const page = await openPage(t, tk.url);
  page.close();
  await eventually(
    async () => (await t.app.live.presence.members(presenceScopes.page(tk.id))).length === 0,
    'the server to see the page go',
  );
  const body = await ready(tk.id);
  assert.deepEqual([body.rang, body.channel_used], [false, 'none']);
});

test('ring again reaches the open page again, as a new ring with the manual reason', async () => {
  const tk = await ticket();
  const page = await openPage(t, tk.url);
  await ready(tk.id);
  const first = await page.next('ring');
  clock.advance(11_000);
  const again = await t.request('POST', `/v1/tickets/${tk.id}/ring`);
  assert.equal(again.status, 200, again.text);
  assert.deepEqual([again.body.rang, again.body.channel_used], [true, 'page']);
  const second = await page.next('ring');
  assert.deepEqual([first.data.seq, second.data.seq, second.data.reason], [1, 2, 'manual']);
  assert.notEqual(first.data.ring_id, second.data.ring_id);
  page.close();
});

test('call_out_loud is true with a voice-on board of that queue connected', async () => {
  const d = await display({ name: 'Counter', queues: ['A'], voice: true });
  const board = await openBoard(t, d.url, true);
  const tk = await ticket('A');
  const body = await ready(tk.id);
  assert.equal(body.call_out_loud, true);
  const a = await board.next('announce');
  assert.equal(a.data.number, tk.display_number);
  assert.equal(a.data.speech, `Number ${tk.display_number.replace('-', ' ')}`);
  board.close();
  await t.request('DELETE', `/v1/displays/${d.id}`);
});

test('call_out_loud is false with no board, with a board of another queue, and with voice off', async () => {
  const none = await ready((await ticket('A')).id);
  assert.equal(none.call_out_loud, false);

  const other = await display({ name: 'B only', queues: ['B'], voice: true });
  const silent = await display({ name: 'Mute', queues: [], voice: false });
  const b1 = await openBoard(t, other.url, true);
  const b2 = await openBoard(t, silent.url, true);
  const tk = await ticket('A');
  const body = await ready(tk.id);
  assert.equal(body.call_out_loud, false);
  assert.equal(b1.all.filter((e) => e.event === 'announce').length, 0, 'a board of queue B is not asked to call A');
  assert.equal(b2.all.filter((e) => e.event === 'announce').length, 0, 'a board without voice is not asked');
  b1.close();
  b2.close();
  await t.request('DELETE', `/v1/displays/${other.id}`);
  await t.request('DELETE', `/v1/displays/${silent.id}`);
});

test('a board whose sound was never enabled answers no, and the ready call does not wait for the deadline', async () => {
  const d = await display({ name: 'Muted TV', voice: true }, patient);
  const board = await openBoard(patient, d.url, false);
  const tk = await ticket('A', patient);
  const started = Date.now();
  const body = await ready(tk.id, patient);
  assert.equal(body.call_out_loud, false);
  assert.ok(Date.now() - started < PATIENT_DEADLINE_MS / 2, 'no waiting for the deadline for a board that cannot speak');
  board.close();
  await patient.request('DELETE', `/v1/displays/${d.id}`);
});

test('an idempotent repeat of ready replays the answer and rings nobody twice', async () => {
  const tk = await ticket();
  const page = await openPage(t, tk.url);
  const headers = { 'idempotency-key': `ready-${tk.id}` };
  const first = await t.request('POST', `/v1/tickets/${tk.id}/ready`, { headers });
  const again = await t.request('POST', `/v1/tickets/${tk.id}/ready`, { headers });
  assert.equal(first.body.channel_used, 'page');
  assert.equal(again.text, first.text);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  await page.next('snapshot', (d) => d.status === 'ready');
  assert.equal(page.all.filter((e) => e.event === 'ring').length, 1);
  page.close();
});

test('the hourly sweep forgets ring confirmations a week old, and only those', async () => {
  const tk = await ticket();
  const page = await openPage(t, tk.url);
  assert.equal((await ready(tk.id)).channel_used, 'page');
  page.close();
  const confirmations = async (): Promise<number> =>
    Number(
      (
        await t.app.services.db.query<{ n: number }>(
          'SELECT COUNT(*) AS n FROM ring_deliveries d JOIN rings r ON r.id = d.ring_id WHERE r.ticket_id = $1',
          [tk.id],
        )
      )[0]!.n,
    );
  // The page's confirmation is written as it arrives, which may be just after the ready's answer.
  await eventually(async () => (await confirmations()) === 1, 'the page confirmed the ring');
  clock.advance(6 * 24 * 3600_000);
  await t.app.maintenance.sweep();
  assert.equal(await confirmations(), 1, 'six days old: kept');
  clock.advance(2 * 24 * 3600_000);
  await t.app.maintenance.sweep();
  assert.equal(await confirmations(), 0, 'eight days old: gone');
});
