// Group commit of creates on PostgreSQL (src/store/postgres/create-ticket-batches.ts), against a
// fake store whose statements the test finishes by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { CreateTicketBatches, type Place, type RunCreates } from '../../src/store/postgres/create-ticket-batches.ts';
import { deferred, type Deferred } from '../helpers/tickets.ts';

type Input = { day: string; place: Place };
type Result = { number: number };
type Call = { days: string[]; done: Deferred<void>; fail?: unknown };

/** A store that records each statement's creates (by day) and answers when the test says so. */
function fakeStore(): { db: RunCreates<Input, Result>; calls: Call[] } {
  const calls: Call[] = [];
  const db: RunCreates<Input, Result> = async (items) => {
    const days = items.map((it) => it.day);
    const call: Call = { days, done: deferred() };
    calls.push(call);
    await call.done.promise;
    if (call.fail !== undefined) throw call.fail;
    return days.map((_, i) => ({ number: i + 1 }));
  };
  return { db, calls };
}

/** A create of `queue` for `day`, with an Idempotency-Key when `key` is given. */
function create(batches: CreateTicketBatches<Input, Result>, day: string, queue = 'q', key: string | null = null): Promise<Result> {
  const place = { queue, day, key };
  return batches.run({ day, place }, place);
}
const tick = () => new Promise((r) => setImmediate(r));

test('a create with a free slot runs at once and alone; those arriving meanwhile share the next statement', async () => {
  const { db, calls } = fakeStore();
  const batches = new CreateTicketBatches(db, { slots: 1, maxBatch: 3 });
  const first = create(batches, 'd1');
  await tick();
  assert.equal(calls.length, 1);
  const waiting = Array.from({ length: 5 }, () => create(batches, 'd1'));
  await tick();
  assert.equal(calls.length, 1, 'the others wait for the slot');
  calls[0]!.done.resolve();
  assert.equal((await first).number, 1);
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
    (await Promise.all(waiting)).map((r) => r.number),
    [1, 2, 3, 1, 2],
  );
});

test('a statement takes one business day per queue: a create of another day waits for the next', async () => {
  const { db, calls } = fakeStore();
  const batches = new CreateTicketBatches(db, { slots: 1, maxBatch: 10 });
  const all = [create(batches, 'd0')];
  await tick();
  all.push(create(batches, 'd1'), create(batches, 'd2'), create(batches, 'd2', 'other'), create(batches, 'd1'));
  calls[0]!.done.resolve();
  await tick();
  assert.deepEqual(calls[1]!.days, ['d1', 'd2', 'd1']);
  calls[1]!.done.resolve();
  await tick();
  assert.deepEqual(calls[2]!.days, ['d2']);
  calls[2]!.done.resolve();
  await Promise.all(all);
});

test('two creates with one Idempotency-Key never share a statement', async () => {
  const { db, calls } = fakeStore();
  const batches = new CreateTicketBatches(db, { slots: 1, maxBatch: 10 });
  const all = [create(batches, 'd')];
  await tick();
  all.push(create(batches, 'd', 'q', 'k1'), create(batches, 'd', 'q', 'k1'), create(batches, 'd', 'q', 'k2'), create(batches, 'd'));
  calls[0]!.done.resolve();
  await tick();
  assert.equal(calls[1]!.days.length, 3, 'k1, k2 and the create without a key');
  calls[1]!.done.resolve();
  await tick();
  assert.equal(calls[2]!.days.length, 1, 'the second k1 alone, next');
  calls[2]!.done.resolve();
  await Promise.all(all);
});

test('a statement the server refused is tried again create by create; a lost connection fails its creates', async () => {
  const { db, calls } = fakeStore();
  const batches = new CreateTicketBatches(db, { slots: 1, maxBatch: 10 });
  const first = create(batches, 'd');
  await tick();
  const refused = [create(batches, 'd'), create(batches, 'd')];
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
  assert.equal(b!.status === 'fulfilled' ? b!.value.number : null, 1);
  await tick();

  const busy = create(batches, 'd');
  const lost = [create(batches, 'd'), create(batches, 'd')];
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
