import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('a POS creates a ticket and marks it ready', async () => {
  const created = await t.request('POST', '/v1/tickets', { body: { queue: 'A', external_ref: 'order-1' } });
  assert.equal(created.status, 201);
  assert.equal(created.body.display_number, 'A-1');
  assert.match(created.body.url, /^http:\/\/localhost:3000\/t\/[A-Z2-7]{32}$/);
  const ready = await t.request('POST', `/v1/tickets/${created.body.id}/ready`);
  assert.equal(ready.status, 200);
  assert.deepEqual([ready.body.rang, ready.body.channel_used, ready.body.call_out_loud], [false, 'none', false]);
  assert.equal(ready.body.ticket.status, 'ready');
});
