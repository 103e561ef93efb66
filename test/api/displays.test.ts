// Display boards: the /v1/displays API, the board page, and what a deleted link shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openBoard, pathOf } from '../helpers/live.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
  await t.request('POST', '/v1/queues', { body: { name: 'Drinks' } });
});
after(() => t.close());

test('create, list and delete a board; the link is /board/<token>', async () => {
  const r = await t.request('POST', '/v1/displays', { body: { name: 'Counter TV', queues: ['A', 'Drinks'], voice: true } });
  assert.equal(r.status, 201, r.text);
  const d = r.body;
  assert.match(d.id, /^dsp_/);
  assert.deepEqual([d.object, d.name, d.queues, d.voice, d.livemode], ['display', 'Counter TV', ['A', 'Drinks'], true, false]);
  assert.match(d.url, /^http:\/\/localhost:3000\/board\/[A-Za-z0-9]{32}$/, 'letters and digits: a double-click selects the whole link');
  const list = await t.request('GET', '/v1/displays');
  assert.ok(list.body.data.some((x: any) => x.id === d.id && x.url === d.url));
  const del = await t.request('DELETE', `/v1/displays/${d.id}`);
  assert.deepEqual(del.body, { object: 'display', id: d.id, deleted: true });
  assert.ok(!(await t.request('GET', '/v1/displays')).body.data.some((x: any) => x.id === d.id));
  assert.equal((await t.request('DELETE', `/v1/displays/${d.id}`)).status, 404);
});

test('defaults: every queue, voice on', async () => {
  const r = await t.request('POST', '/v1/displays', { body: {} });
  assert.equal(r.status, 201);
  assert.deepEqual([r.body.name, r.body.queues, r.body.voice], ['Display board', [], true]);
});

test('bad input is 422 with a pointer, and creates nothing', async () => {
  const before = (await t.request('GET', '/v1/displays')).body.data.length;
  const cases: Array<[unknown, string]> = [
    [{ queues: ['Nope'] }, '/queues/0'],
    [{ queues: ['bad name!'] }, '/queues/0'],
    [{ name: '' }, '/name'],
    [{ name: 'x'.repeat(65) }, '/name'],
    [{ voice: 'yes' }, '/voice'],
    [{ colour: 'red' }, ''],
  ];
  for (const [body, pointer] of cases) {
    const r = await t.request('POST', '/v1/displays', { body });
    assert.equal(r.status, 422, JSON.stringify(body));
    assert.equal(r.body.code, 'validation-failed');
    if (pointer !== '')
      assert.ok(
        r.body.errors.some((e: any) => e.pointer.endsWith(pointer)),
        `${JSON.stringify(body)} → ${JSON.stringify(r.body.errors)}`,
      );
  }
  assert.equal((await t.request('GET', '/v1/displays')).body.data.length, before);
});

test('boards are per branch and mode', async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Test board' } })).body;
  const live = await t.request('GET', '/v1/displays', { key: t.tenant.liveKey });
  assert.ok(!live.body.data.some((x: any) => x.id === d.id));
  assert.equal((await t.request('DELETE', `/v1/displays/${d.id}`, { key: t.tenant.liveKey })).status, 404);
  const other = await t.newTenant();
  assert.equal((await t.request('DELETE', `/v1/displays/${d.id}`, { key: other.testKey })).status, 404);
  assert.equal((await t.request('DELETE', '/v1/displays/not-an-id')).status, 404);
});

test('the board page shows its queues: preparing, ready (newest first, highlighted), not other queues', async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Drinks TV', queues: ['Drinks'] } })).body;
  const a = (await t.request('POST', '/v1/tickets', { body: { queue: 'A' } })).body;
  const d1 = (await t.request('POST', '/v1/tickets', { body: { queue: 'Drinks' } })).body;
  const d2 = (await t.request('POST', '/v1/tickets', { body: { queue: 'Drinks' } })).body;
  await t.request('POST', `/v1/tickets/${d1.id}/ready`);
  const page = await fetch(t.url + pathOf(d.url), { headers: { 'accept-language': 'en' } });
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
  const html = await page.text();
  assert.match(html, new RegExp(`<ol id="ready"><li class="new">${d1.display_number}</li></ol>`));
  assert.match(html, new RegExp(`<ol id="preparing"><li>${d2.display_number}</li></ol>`));
  assert.ok(!html.includes(`>${a.display_number}<`));
});

test('a deleted board link says so (410), and open boards are told at once', async () => {
  const d = (await t.request('POST', '/v1/displays', { body: { name: 'Old TV' } })).body;
  const board = await openBoard(t, d.url);
  await t.request('DELETE', `/v1/displays/${d.id}`);
  const gone = await board.next('gone');
  assert.equal(gone.data.reason, 'deleted');
  await board.closed;
  const page = await fetch(t.url + pathOf(d.url));
  assert.equal(page.status, 410);
  const html = await page.text();
  assert.match(html, /This board was removed/);
  assert.ok(!html.includes('<script'), 'no live script on a removed board');
  const stream = await fetch(`${t.url}${pathOf(d.url)}/events`);
  assert.equal(stream.status, 404);
  assert.match(stream.headers.get('content-type') ?? '', /^application\/problem\+json/);
});

test('an unknown or malformed board link gets a friendly 404 page', async () => {
  for (const token of ['A'.repeat(32), 'short', '..%2F..%2Fetc']) {
    const r = await fetch(`${t.url}/board/${token}`);
    assert.equal(r.status, 404, token);
    assert.match(r.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await r.text(), /Unknown board link/);
  }
});
