// The customer's service worker (web/push/push-sw.js) alerts once per ring: a ring sent again
// after a server crash (decision 0007) replaces the notification silently, while a new ring of the
// same ticket (a reminder) alerts again and still replaces the earlier one instead of stacking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PushDevice } from '../helpers/push-device.ts';

const ring = (ringId: string | undefined, ticketId = 'tk_1') => ({
  type: 'ring',
  ring_id: ringId,
  ticket_id: ticketId,
  display_number: 'A-7',
  title: 'A-7 is ready',
  body: 'Pickup counter',
  url: 'http://localhost:3000/t/abc',
  reason: 'ready',
  seq: 1,
});

test('the same ring twice alerts once; the repeat replaces the notification silently', async () => {
  const phone = new PushDevice();
  await phone.push(ring('ring_1'));
  await phone.push(ring('ring_1'));
  assert.equal(phone.shown.length, 2, 'every push shows a notification, as browsers require');
  assert.equal(phone.alerts.length, 1);
  const [first, repeat] = phone.shown;
  assert.deepEqual([first!.tag, first!.renotify, first!.data.ring_id], ['tk_1', true, 'ring_1']);
  assert.deepEqual([repeat!.tag, repeat!.renotify, repeat!.silent], ['tk_1', false, true]);
});

test('a reminder (a new ring of the same ticket) alerts again and replaces the earlier notification', async () => {
  const phone = new PushDevice();
  await phone.push(ring('ring_1'));
  await phone.push(ring('ring_2'));
  assert.equal(phone.alerts.length, 2);
  assert.deepEqual(
    phone.shown.map((n) => n.tag),
    ['tk_1', 'tk_1'],
  );
});

test('rings of different tickets each alert', async () => {
  const phone = new PushDevice();
  await phone.push(ring('ring_1', 'tk_1'));
  await phone.push(ring('ring_9', 'tk_2'));
  assert.equal(phone.alerts.length, 2);
});

test('a payload without a ring id (sent before ring ids were added) always alerts', async () => {
  const phone = new PushDevice();
  await phone.push(ring(undefined));
  await phone.push(ring(undefined));
  assert.equal(phone.alerts.length, 2);
});
