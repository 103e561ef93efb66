// The page channel (src/channels/page.ts) against an in-memory bus and a presence the test
// answers by hand: the ring goes out while presence is still being asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPageChannel } from '../../src/channels/page.ts';
import { MemoryBus } from '../../src/realtime/bus.ts';
import { relayTopics, type RingAckMessage } from '../../src/realtime/ring-relay.ts';
import type { Presence, PresenceMember } from '../../src/realtime/presence.ts';
import type { RingRequest } from '../../src/core/ring.ts';
import type { Queryable } from '../../src/core/db.ts';
import type { Ticket } from '../../src/core/ticket.ts';
import { EVERY_CHANNEL } from '../../src/domain/channel-choice.ts';
import { deferred } from '../helpers/tickets.ts';
import { withDefaults } from '../../src/domain/branch-settings.ts';

const TICKET = 'tk_page_channel_test';
const request: RingRequest = {
  ringId: 'rng_1',
  seq: 1,
  reason: 'ready',
  livemode: false,
  channels: EVERY_CHANNEL,
  ticket: { id: TICKET } as Ticket,
  first: { branch: { name: 'B', settings: withDefaults({}) }, plan: 'pro', pushSubscriptions: 0 },
};
const noDb = {} as Queryable; // the first attempt looks nothing up

/** A presence whose `members` answers only when the test says so. */
function gatedPresence() {
  const gate = deferred<PresenceMember[]>();
  const presence = { members: () => gate.promise } as unknown as Presence;
  return { presence, gate };
}

const ack = (delivered: boolean): RingAckMessage => ({
  type: 'ring.ack',
  ring_id: request.ringId,
  channel: 'page',
  delivered,
  ticket_id: TICKET,
  branch_id: 'br',
  mode: 'test',
  target: 'page-1',
});

test('an open page hears the ring while presence is still being asked, and its confirmation is the answer', async () => {
  const bus = new MemoryBus();
  const { presence, gate } = gatedPresence();
  let presenceAnswered = false;
  let heardBeforePresence = false;
  bus.subscribe(relayTopics.pageRing(TICKET), (m) => {
    heardBeforePresence = !presenceAnswered;
    assert.equal(m.type, 'page.ring');
    // The page confirms through whichever node it is on: the ack crosses the bus.
    queueMicrotask(() => bus.publish(relayTopics.ringAck(request.ringId), ack(true)));
  });
  const attempt = createPageChannel({ db: noDb, bus, presence }).ring(request, AbortSignal.timeout(2_000));
  await new Promise((r) => setImmediate(r));
  presenceAnswered = true;
  gate.resolve([{ member: 'page-1', info: {} }]);
  assert.ok(heardBeforePresence, 'the ring was published before presence answered');
  assert.deepEqual(await attempt, { channel: 'page', delivered: true });
});

test('with no page open the answer is "no page open" at once, not at the deadline', async () => {
  const bus = new MemoryBus();
  const { presence, gate } = gatedPresence();
  const never = new AbortController().signal; // no deadline: only presence can end the wait
  const attempt = createPageChannel({ db: noDb, bus, presence }).ring(request, never);
  gate.resolve([]);
  assert.deepEqual(await attempt, { channel: 'page', delivered: false, detail: 'no page open' });
});

test('a page that confirms as presence says none is open still counts as reached', async () => {
  const bus = new MemoryBus();
  const { presence, gate } = gatedPresence();
  bus.subscribe(relayTopics.pageRing(TICKET), () => {
    bus.publish(relayTopics.ringAck(request.ringId), ack(true));
    gate.resolve([]); // presence had not seen the page yet
  });
  setTimeout(() => gate.resolve([]), 1_000).unref(); // a channel that waits for presence first must fail, not hang
  const attempt = createPageChannel({ db: noDb, bus, presence }).ring(request, AbortSignal.timeout(2_000));
  assert.deepEqual(await attempt, { channel: 'page', delivered: true });
});
