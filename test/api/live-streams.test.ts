// The SSE streams themselves, read with a real HTTP client: headers, the retry hint, an id on
// every event, heartbeats, presence kept alive by them, and Last-Event-ID resync (a fresh
// snapshot, so nothing stale survives a reconnect, on pages and boards alike).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openSse } from '../helpers/sse-client.ts';
import { openBoard, openPage, pathOf } from '../helpers/live.ts';
import { presenceScopes } from '../../src/realtime/presence.ts';
import { FakeClock } from '../helpers/clock.ts';
import { eventually } from '../helpers/eventually.ts';

const HEARTBEAT_MS = 40;
let t: TestApp;
const clock = new FakeClock();
before(async () => {
  t = await startTestApp({ clock, env: { SSE_HEARTBEAT_MS: String(HEARTBEAT_MS) } });
});
after(() => t.close());

const create = async () => (await t.request('POST', '/v1/tickets', { body: {} })).body;

test('a customer stream: event-stream headers, retry hint, a snapshot first, an id on every event', async () => {
  const tk = await create();
  const sse = await openSse(`${t.url}${pathOf(tk.url)}/events`);
  assert.equal(sse.status, 200);
  assert.match(String(sse.headers['content-type']), /^text\/event-stream/);
  assert.equal(sse.headers['cache-control'], 'no-store');
  assert.equal(sse.headers['referrer-policy'], 'no-referrer');
  const first = await sse.next();
  assert.equal(first.event, 'snapshot');
  assert.ok(sse.retry !== null && sse.retry > 0);
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  await sse.next('snapshot', (v) => v.status === 'ready');
  for (const e of sse.all.filter((x) => x.event !== 'ping')) assert.ok(e.id !== null && e.id.length > 0, `${e.event} has an id`);
  const ids = sse.all.filter((x) => x.id !== null).map((x) => x.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  sse.close();
});

test('heartbeats arrive at the configured interval and keep presence alive past its TTL', async () => {
  const tk = await create();
  const page = await openPage(t, tk.url);
  for (let i = 0; i < 6; i++) await page.next('ping', undefined, HEARTBEAT_MS * 20);
  // 6 pings = 2 presence TTLs (3 heartbeats each): still present because every ping refreshed it.
  assert.equal((await t.app.live.presence.members(presenceScopes.page(tk.id))).length, 1);
  page.close();
});

test('Last-Event-ID: a reconnect gets a fresh snapshot of what changed while away', async () => {
  const tk = await create();
  const first = await openPage(t, tk.url);
  const lastId = first.all.find((e) => e.event === 'snapshot')!.id!;
  first.close();
  await eventually(
    async () => (await t.app.live.presence.members(presenceScopes.page(tk.id))).length === 0,
    'the server to see the page go',
  );
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  const again = await openSse(`${t.url}${pathOf(tk.url)}/events`, { 'last-event-id': lastId });
  const snap = await again.next();
  assert.equal(snap.event, 'snapshot');
  assert.deepEqual([snap.data.status, snap.data.state], ['ready', 'ready']);
  assert.ok(snap.data.ring?.id, 'the ring it missed is in the snapshot, so the page still alerts');
  assert.notEqual(snap.id, lastId);
  again.close();
});

test('a board never shows a stale number as ready after a reconnect', async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Resync' } })).body;
  const tk = await create();
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  const board = await openBoard(t, d.url);
  assert.ok(board.snapshot.ready.some((r: any) => r.number === tk.display_number));
  const lastId = board.all.at(-1)!.id!;
  board.close();
  await t.request('POST', `/v1/tickets/${tk.id}/collect`);
  const again = await openSse(`${t.url}${pathOf(d.url)}/events`, { 'last-event-id': lastId });
  const snap = await again.next('snapshot');
  assert.ok(!snap.data.ready.some((r: any) => r.number === tk.display_number));
  assert.ok(!snap.data.preparing.includes(tk.display_number));
  again.close();
});

test('the board follows tickets live: preparing, then ready, then gone; missed after three rings', async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Live' } })).body;
  const board = await openBoard(t, d.url);
  const tk = await create();
  await board.next('snapshot', (v) => v.preparing.includes(tk.display_number));
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  const ready = await board.next('snapshot', (v) => v.ready.some((r: any) => r.number === tk.display_number));
  assert.ok(!ready.data.preparing.includes(tk.display_number));
  for (let i = 0; i < 2; i++) {
    clock.advance(11_000);
    assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/ring`)).status, 200);
  }
  const missed = await board.next('snapshot', (v) => v.missed.includes(tk.display_number));
  assert.ok(!missed.data.ready.some((r: any) => r.number === tk.display_number), 'missed numbers leave the ready column');
  await t.request('POST', `/v1/tickets/${tk.id}/collect`);
  await board.next('snapshot', (v) => !v.missed.includes(tk.display_number) && !v.ready.some((r: any) => r.number === tk.display_number));
  board.close();
});

test("a closed ticket's stream says so and is not counted as an open page", async () => {
  const tk = await create();
  await t.request('POST', `/v1/tickets/${tk.id}/collect`);
  const page = await openPage(t, tk.url);
  assert.deepEqual([page.snapshot.state, page.snapshot.open], ['collected', false]);
  assert.equal((await t.app.live.presence.members(presenceScopes.page(tk.id))).length, 0);
  page.close();
});

test('closing the server ends the streams instead of hanging the shutdown', async () => {
  const other = await startTestApp({ env: { SSE_HEARTBEAT_MS: '1000' } });
  const tk = (await other.request('POST', '/v1/tickets', { body: {} })).body;
  const page = await openSse(`${other.url}${pathOf(tk.url)}/events`);
  await page.next('snapshot');
  const started = Date.now();
  await other.close();
  await page.closed;
  assert.ok(Date.now() - started < 5000);
});
