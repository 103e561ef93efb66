// Group commit of one-statement creates (src/store/postgres/create-ticket-batches.ts), against a
// fake store whose statements the test finishes by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { CreateTicketBatches, type RunCreates } from '../../src/store/postgres/create-ticket-batches.ts';
import type { CreateStatementInput } from '../../src/store/postgres/create-ticket-statement.ts';
import { deferred, type Deferred } from '../helpers/tickets.ts';

type Call = { days: string[]; done: Deferred<void>; fail?: unknown };

/** A store that records each statement's creates (by day) and answers when the test says so. */
function fakeStore(): { db: RunCreates; calls: Call[] } {
  const calls: Call[] = [];
  const db: RunCreates = async (items) => {
    const days = items.map((it) => it.day);
    const call: Call = { days, done: deferred() };
    calls.push(call);
    await call.done.promise;
    if (call.fail !== undefined) throw call.fail;
    return days.map((_, i) => ({
      branch: null,
      fresh: true,
      number: i + 1,
      endpoints: 0,
      deliveries: 0,
      jobs: [],
    }));
  };
  return { db, calls };
}

const input = (day: string): CreateStatementInput => ({
  ticket: [],
  queueGiven: true,
  timezone: 'UTC',
  settings: '{}',
  day,
  event: { id: 'evt', createdAt: 0, bodyBefore: '', bodyAfter: '' },
  webhooks: null,
});
const tick = () => new Promise((r) => setImmediate(r));

test('a create with a free slot runs at once and alone; those arriving meanwhile share the next statement', async () => {
  const { db, calls } = fakeStore();
  const batches = new CreateTicketBatches(db, { slots: 1, maxBatch: 3 });
  const first = batches.run(input('d1'), 'q');
  await tick();
  assert.equal(calls.length, 1);
  const waiting = Array.from({ length: 5 }, () => batches.run(input('d1'), 'q'));
  await tick();
  assert.equal(calls.length, 1, 'the others wait for the slot');
  calls[0]!.done.resolve();
  assert.equal((await first)?.number, 1);
  await tick();
  assert.deepEqual(
    calls.map((c) => c.days.length),
    [1, 3],
    'up to maxBatch together',
  );
  calls[1]!.done.resolve();
  await tick();
  assert.deepEqual(
    calls.map((c) => c.days.length),
    [1, 3, 2],
  );
  calls[2]!.done.resolve();
  assert.deepEqual(
    (await Promise.all(waiting)).map((r) => r?.number),
    [1, 2, 3, 1, 2],
  );
});

test('a statement takes one business day per queue: a create of another day waits for the next', async () => {
  const { db, calls } = fakeStore();
  const batches = new CreateTicketBatches(db, { slots: 1, maxBatch: 10 });
  const all = [batches.run(input('d0'), 'q')];
  await tick();
  all.push(batches.run(input('d1'), 'q'), batches.run(input('d2'), 'q'), batches.run(input('d2'), 'other'), batches.run(input('d1'), 'q'));
  calls[0]!.done.resolve();
  await tick();
  assert.deepEqual(calls[1]!.days, ['d1', 'd2', 'd1']);
  calls[1]!.done.resolve();
  await tick();
  assert.deepEqual(calls[2]!.days, ['d2']);
  calls[2]!.done.resolve();
  await Promise.all(all);
});

test('a statement the server refused is tried again create by create; a lost connection fails its creates', async () => {
  const { db, calls } = fakeStore();
  const batches = new CreateTicketBatches(db, { slots: 1, maxBatch: 10 });
  const first = batches.run(input('d'), 'q');
  await tick();
  const refused = [batches.run(input('d'), 'q'), batches.run(input('d'), 'q')];
  calls[0]!.done.resolve();
  await first;
  await tick();
  calls[1]!.fail = new pg.DatabaseError('deadlock detected', 0, 'error');
  calls[1]!.done.resolve();
  await tick();
  assert.deepEqual(
    calls.slice(2).map((c) => c.days.length),
    [1, 1],
  );
  calls[2]!.fail = new pg.DatabaseError('bad value', 0, 'error');
  calls[2]!.done.resolve();
  calls[3]!.done.resolve();
  const [a, b] = await Promise.allSettled(refused);
  assert.equal(a!.status, 'rejected', 'the create that fails alone gets its own error');
  assert.equal(b!.status === 'fulfilled' ? b!.value?.number : null, 1);
  await tick();

  const busy = batches.run(input('d'), 'q');
  const lost = [batches.run(input('d'), 'q'), batches.run(input('d'), 'q')];
  calls[4]!.done.resolve();
  await busy;
  await tick();
  assert.equal(calls[5]!.days.length, 2);
  calls[5]!.fail = new Error('Connection terminated unexpectedly');
  calls[5]!.done.resolve();
  assert.deepEqual(
    (await Promise.allSettled(lost)).map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.equal(calls.length, 6, 'nothing is tried again when the outcome is unknown');
});
