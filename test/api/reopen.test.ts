// A ticket cancelled or collected by mistake comes back (issue 25 item 11, decision 0047), while
// its customer page still opens: to `ready` if it had been made ready, else `created`, with a
// `ticket.reopened` event; never an open or expired ticket, never after the page has gone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { pathOf } from '../helpers/live.ts';

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

const create = async (): Promise<any> => (await t.request('POST', '/v1/tickets', { body: {} })).body;
const post = (id: string, verb: string) => t.request('POST', `/v1/tickets/${id}/${verb}`, { body: {} });

test('a cancelled ticket comes back as it was; its page and the POS hear of it', async () => {
  const tk = await create();
  assert.equal((await post(tk.id, 'cancel')).status, 200);
  clock.advance(60_000);
  const back = await post(tk.id, 'reopen');
  assert.equal(back.status, 200, back.text);
  assert.equal(back.body.status, 'created');
  assert.equal(back.body.display_number, tk.display_number);
  assert.deepEqual([back.body.cancelled_at, back.body.cancellation_reason], [null, null]);
  const events = (await t.request('GET', '/v1/events?type=ticket.reopened')).body.data.filter((e: any) => e.data.object.id === tk.id);
  assert.equal(events.length, 1);
  assert.equal(events[0].data.previous_status, 'cancelled');
  const page = await fetch(t.url + pathOf(tk.url));
  assert.equal(page.status, 200);
  await page.arrayBuffer();
  // Open again: it can be made ready and rung.
  assert.equal((await post(tk.id, 'ready')).status, 200);
});

test('a collected ticket that had been ready is ready again', async () => {
  const tk = await create();
  assert.equal((await post(tk.id, 'ready')).status, 200);
  assert.equal((await post(tk.id, 'collect')).status, 200);
  const back = await post(tk.id, 'reopen');
  assert.equal(back.body.status, 'ready');
  assert.equal(back.body.collected_at, null);
});

test('an open ticket, and one closed longer than its page lasts, cannot be reopened (an expired one neither: test/unit/ticket-state.test.ts)', async () => {
  const open = await create();
  const refused = await post(open.id, 'reopen');
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'ticket-state-conflict');
  assert.equal(refused.body.ticket_status, 'created');

  const old = await create();
  assert.equal((await post(old.id, 'cancel')).status, 200);
  clock.advance(24 * 3600_000 + 1000);
  const late = await post(old.id, 'reopen');
  assert.equal(late.status, 409);
  assert.match(late.body.detail, /closed more than 24 hours ago/);
  assert.equal(await fetch(t.url + pathOf(old.url)).then((r) => r.status), 404, 'its page is gone too');
});
