// Readies that arrive together share one transaction and one commit (decision 0079): on
// PostgreSQL one batch of savepoints with one COMMIT (Db.writeShared), on the embedded store its
// group commit. Each request is still answered with its own result or its own problem: a ticket
// already collected answers 409 while its neighbours in the same commit become ready, and every
// ready is recorded once (one ticket.ready event each, none for the refused one).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ctxForBranch } from '../../src/actions/system-ctx.ts';
import { AppError } from '../../src/domain/errors.ts';
import { markReady } from '../../src/ring/ready.ts';
import { write } from '../../src/write/idempotent-write.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const READIES = 12;

test('a batch of readies in which one ticket is already collected: that one answers its 409, the others are ready, each once', async () => {
  const ids: string[] = [];
  for (let i = 0; i < READIES; i++) {
    const res = await t.request('POST', '/v1/tickets', { body: {} });
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.id as string);
  }
  const collected = ids[5]!;
  assert.equal((await t.request('POST', `/v1/tickets/${collected}/collect`)).status, 200);

  // Sent together through the write path, as a POS's readies arriving at once are: the first finds
  // the store idle and goes alone, the others wait for it and share the next commit.
  const db = t.app.services.db;
  const batches: number[] = [];
  const observe = db.onGroupCommit;
  db.onGroupCommit = (writes) => {
    batches.push(writes);
    observe?.(writes);
  };
  const ctx = (await ctxForBranch(t.app.services, t.tenant.branchId, 'test', 'test'))!;
  let answers: Array<PromiseSettledResult<unknown>>;
  try {
    answers = await Promise.allSettled(ids.map((id) => write(ctx, { verb: markReady, input: { id } })));
  } finally {
    db.onGroupCommit = observe;
  }

  ids.forEach((id, i) => {
    const answer = answers[i]!;
    if (id === collected) {
      assert.equal(answer.status, 'rejected');
      const err = (answer as PromiseRejectedResult).reason;
      assert.ok(err instanceof AppError && err.code === 'ticket-state-conflict', String(err));
    } else {
      assert.equal(answer.status, 'fulfilled', String((answer as PromiseRejectedResult).reason));
      const ring = (answer as PromiseFulfilledResult<any>).value;
      assert.equal(ring.ticket.status, 'ready');
      assert.equal(ring.ticket.id, id);
    }
  });
  assert.ok(
    batches.some((n) => n > 1),
    `the readies shared a commit (writes per commit: ${batches.join(', ')})`,
  );

  const events = await t.request('GET', '/v1/events?type=ticket.ready&limit=100');
  const readied = events.body.data.map((e: any) => e.data.object.id as string).sort();
  assert.deepEqual(
    readied,
    ids.filter((id) => id !== collected).sort(),
    'one ticket.ready per ticket made ready, none for the collected one',
  );
  const collectedNow = await t.request('GET', `/v1/tickets/${collected}`);
  assert.equal(collectedNow.body.status, 'collected');

  // No hot row: on PostgreSQL no rollup row is written by two tickets' readies (a row per ticket,
  // decision 0079); the embedded store has one writer and one row per hour.
  const rows = await db.query<{ n: number; most: number; total: number }>(
    'SELECT COUNT(*) AS n, MAX(ready) AS most, SUM(ready) AS total FROM insight_hours WHERE branch_id = $1 AND ready > 0',
    [t.tenant.branchId],
  );
  if (db.dialect === 'postgres') {
    assert.equal(Number(rows[0]!.most), 1, 'each rollup row counts one ticket');
    assert.equal(Number(rows[0]!.n), READIES - 1);
  }
  assert.equal(Number(rows[0]!.total), READIES - 1, 'every ready counted once');
});

test('readies sent over HTTP at once, one of them of a collected ticket: each request gets its own answer', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await t.request('POST', '/v1/tickets', { body: {} })).body.id as string);
  await t.request('POST', `/v1/tickets/${ids[1]}/collect`);
  const answers = await Promise.all(ids.map((id) => t.request('POST', `/v1/tickets/${id}/ready`)));
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 409, 200, 200],
  );
  assert.equal(answers[1]!.body.ticket_status, 'collected');
  for (const i of [0, 2, 3]) assert.equal(answers[i]!.body.ticket.id, ids[i]);
});

test('a batch of collects and cancels of one ticket: one wins, the others answer their own 409', async () => {
  const id = (await t.request('POST', '/v1/tickets', { body: {} })).body.id as string;
  const answers = await Promise.all([
    t.request('POST', `/v1/tickets/${id}/collect`),
    t.request('POST', `/v1/tickets/${id}/cancel`),
    t.request('POST', `/v1/tickets/${id}/collect`),
  ]);
  const won = answers.filter((a) => a.status === 200);
  assert.equal(won.length, 1, answers.map((a) => a.status).join(', '));
  for (const a of answers.filter((x) => x.status !== 200)) assert.equal(a.body.code, 'ticket-state-conflict');
  const closed = (await t.request('GET', `/v1/tickets/${id}`)).body.status;
  assert.equal(closed, won[0]!.body.status);
});
