// Announcements: the API, and the note reaching waiting customer pages and boards live.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { openBoard, openPage, pathOf } from '../helpers/live.ts';

let t: TestApp;
const clock = new FakeClock();
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

test('create one: 201 with its expiry; listed while active; deleted once', async () => {
  const r = await t.request('POST', '/v1/announcements', { body: { message: 'Kitchen running 10 minutes late', expires_in: 600 } });
  assert.equal(r.status, 201, r.text);
  assert.match(r.body.id, /^ann_/);
  assert.equal(r.body.object, 'announcement');
  assert.equal(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at), 600_000);
  assert.ok((await t.request('GET', '/v1/announcements')).body.data.some((a: any) => a.id === r.body.id));
  const del = await t.request('DELETE', `/v1/announcements/${r.body.id}`);
  assert.deepEqual(del.body, { object: 'announcement', id: r.body.id, deleted: true });
  assert.equal((await t.request('DELETE', `/v1/announcements/${r.body.id}`)).status, 404);
  assert.ok(!(await t.request('GET', '/v1/announcements')).body.data.some((a: any) => a.id === r.body.id));
});

test('bad input is 422: too long, empty, blank, bad expires_in, unknown fields', async () => {
  const cases: unknown[] = [
    { message: 'x'.repeat(281) },
    { message: '' },
    { message: '   ' },
    {},
    { message: 5 },
    { message: 'ok', expires_in: 0 },
    { message: 'ok', expires_in: 'soon' },
    { message: 'ok', expires_in: 10 ** 9 },
    { message: 'ok', colour: 'red' },
  ];
  for (const body of cases) {
    const r = await t.request('POST', '/v1/announcements', { body });
    assert.equal(r.status, 422, JSON.stringify(body));
  }
  assert.equal((await t.request('POST', '/v1/announcements', { body: { message: 'x'.repeat(280) } })).status, 201);
  assert.equal((await t.request('DELETE', '/v1/announcements/ann_nope')).status, 404);
});

test('expiry: gone from the list once its time has passed', async () => {
  const r = await t.request('POST', '/v1/announcements', { body: { message: 'Brief note', expires_in: 60 } });
  clock.advance(61_000);
  assert.ok(!(await t.request('GET', '/v1/announcements')).body.data.some((a: any) => a.id === r.body.id));
});

test('shown live on waiting customer pages and boards, escaped, and taken down live', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'TV' } })).body;
  const page = await openPage(t, tk.url);
  const board = await openBoard(t, d.url);
  const message = 'Card machine down <b>cash only</b>';
  const ann = (await t.request('POST', '/v1/announcements', { body: { message } })).body;
  const p = await page.next('snapshot', (v) => v.announcements.some((a: any) => a.id === ann.id));
  assert.equal(p.data.announcements.find((a: any) => a.id === ann.id).message, message);
  await board.next('snapshot', (v) => v.announcements.some((a: any) => a.id === ann.id));
  const html = await (await fetch(t.url + pathOf(tk.url))).text();
  assert.ok(html.includes('Card machine down &#60;b&#62;cash only&#60;/b&#62;'));
  await t.request('DELETE', `/v1/announcements/${ann.id}`);
  await page.next('snapshot', (v) => !v.announcements.some((a: any) => a.id === ann.id));
  await board.next('snapshot', (v) => !v.announcements.some((a: any) => a.id === ann.id));
  page.close();
  board.close();
});

test('announcements stay in their branch and mode', async () => {
  const ann = (await t.request('POST', '/v1/announcements', { body: { message: 'Test-mode note' } })).body;
  const live = await t.request('GET', '/v1/announcements', { key: t.tenant.liveKey });
  assert.ok(!live.body.data.some((a: any) => a.id === ann.id));
  assert.equal((await t.request('DELETE', `/v1/announcements/${ann.id}`, { key: t.tenant.liveKey })).status, 404);
  const liveTicket = (await t.request('POST', '/v1/tickets', { key: t.tenant.liveKey, body: {} })).body;
  const html = await (await fetch(t.url + pathOf(liveTicket.url))).text();
  assert.ok(!html.includes('Test-mode note'));
});
