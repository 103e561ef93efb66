// Rows described as data (src/store/rows.ts) are what a create writes; these check that a merged
// row (a counter or rollup: 'add' sums, 'max' keeps the larger) means the same whichever way the
// store sends it: one INSERT in a transaction, or a batch of creates' rows in one PostgreSQL
// statement, where a create whose number is held writes none of its rows, and a key recorded
// meanwhile by another create fails the statement.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import type { Db } from '../../src/core/db.ts';
import { insertRow } from '../../src/store/rows.ts';
import type { RowWrite } from '../../src/core/events.ts';
import { PostgresDb } from '../../src/store/postgres/postgres-db.ts';
import { insertCreates } from '../../src/store/postgres/create-statements.ts';
import { keyRecordRow } from '../../src/store/idempotency.ts';
import { ticketRow } from '../../src/store/tickets.ts';
import type { Ticket } from '../../src/core/ticket.ts';
import { newId } from '../../src/domain/ids.ts';
import { ticketToken } from '../../src/domain/ticket-token.ts';
import { createAccount, createBranch } from '../../src/actions/provision.ts';
import { createTestStore, onlyOnPostgres, type TestStore } from '../helpers/store.ts';

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
let store: TestStore;
let db: Db;
let branchId: string;

before(async () => {
  store = await createTestStore();
  db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  await db.migrate();
  branchId = await db.write(async (tx) => {
    const account = await createAccount(tx, { name: 'Rows', plan: 'pro' }, NOW);
    return (await createBranch(tx, { accountId: account.id, name: 'Rows' }, NOW)).id;
  });
});
after(async () => {
  await db.close();
  await store.drop();
});

/** A queue counter as a merged row: the schema's one table that is a counter. */
const counter = (day: string, n: number, how: 'add' | 'max'): RowWrite => ({
  table: 'queue_counters',
  values: { branch_id: branchId, mode: 'test', queue: 'Q', day, last_number: n },
  merge: { key: ['branch_id', 'mode', 'queue', 'day'], columns: { last_number: how } },
});

async function lastNumber(day: string): Promise<number | undefined> {
  const rows = await db.query<{ last_number: number }>(
    'SELECT last_number FROM queue_counters WHERE branch_id = $1 AND queue = $2 AND day = $3',
    [branchId, 'Q', day],
  );
  return rows[0] === undefined ? undefined : Number(rows[0].last_number);
}

test('merged rows add, or keep the larger, in a transaction and across transactions', async () => {
  await db.write(async (tx) => {
    await insertRow(tx, counter('add', 2, 'add'));
    await insertRow(tx, counter('add', 3, 'add'));
    await insertRow(tx, counter('max', 4, 'max'));
    await insertRow(tx, counter('max', 2, 'max'));
  });
  await db.write((tx) => insertRow(tx, counter('add', 1, 'add')));
  assert.equal(await lastNumber('add'), 6);
  assert.equal(await lastNumber('max'), 4);
  await assert.rejects(
    db.write((tx) => insertRow(tx, { ...counter('odd', 1, 'add'), values: { ...counter('odd', 1, 'add').values, extra: 1 } })),
    /neither a key nor merged/,
  );
});

/** A ticket of queue Q as its row, numbered `n`. */
function ticket(n: number): RowWrite {
  const t: Ticket = {
    id: newId('ticket', NOW),
    branchId,
    mode: 'test',
    queue: 'Q',
    number: n,
    displayNumber: `Q-${n}`,
    status: 'created',
    token: ticketToken(),
    externalRef: null,
    customerPhone: null,
    metadata: null,
    source: null,
    createdAt: NOW,
    readyAt: null,
    collectedAt: null,
    cancelledAt: null,
    expiredAt: null,
    closedAt: null,
    cancelReason: null,
    viewedAt: null,
    notifications: 'none',
    acknowledgedAt: null,
    snoozedUntil: null,
    rings: 0,
    lastRingAt: null,
    expiresAt: NOW + 3600_000,
    updatedAt: NOW,
  };
  return ticketRow(t);
}

const key = (name: string, fingerprint = 'f') =>
  keyRecordRow({ branchId, mode: 'test', key: name, fingerprint, status: 201, body: '{}', createdAt: NOW });
const ticketsNumbered = async (n: number) =>
  (await db.query('SELECT id FROM tickets WHERE branch_id = $1 AND queue = $2 AND number = $3', [branchId, 'Q', n])).length;
const keyRecorded = async (name: string) =>
  (await db.query('SELECT key FROM idempotency_keys WHERE branch_id = $1 AND key = $2', [branchId, name])).length;

test(
  "in one PostgreSQL statement, creates' merged rows are summed per key, and a create whose number is held writes nothing",
  onlyOnPostgres,
  async () => {
    assert.ok(db instanceof PostgresDb);
    await db.write((tx) => insertRow(tx, ticket(2))); // open, so number 2 is held
    const held = await insertCreates(db, [
      { rows: [ticket(1), counter('batch', 2, 'add'), counter('batch-max', 7, 'max')], key: null },
      { rows: [ticket(2), counter('batch', 10, 'add'), counter('batch-max', 9, 'max')], key: key('held') },
      { rows: [ticket(3), counter('batch', 3, 'add'), counter('batch-max', 5, 'max')], key: key('fresh') },
    ]);
    assert.deepEqual([...held], [1]);
    assert.equal(await lastNumber('batch'), 5);
    assert.equal(await lastNumber('batch-max'), 7);
    assert.deepEqual([await ticketsNumbered(1), await ticketsNumbered(2), await ticketsNumbered(3)], [1, 1, 1]);
    assert.deepEqual([await keyRecorded('held'), await keyRecorded('fresh')], [0, 1]);
    await insertCreates(db, [{ rows: [ticket(4), counter('batch', 1, 'add'), counter('batch-max', 8, 'max')], key: null }]);
    assert.equal(await lastNumber('batch'), 6);
    assert.equal(await lastNumber('batch-max'), 8);
  },
);

test(
  'in one PostgreSQL statement, a key another create has recorded fails the statement: nothing of its creates is written',
  onlyOnPostgres,
  async () => {
    assert.ok(db instanceof PostgresDb);
    await insertCreates(db, [{ rows: [ticket(10)], key: key('taken') }]);
    await assert.rejects(
      insertCreates(db, [
        { rows: [ticket(11), counter('taken', 1, 'add')], key: null },
        { rows: [ticket(12)], key: key('taken', 'other') },
      ]),
      (err: Error & { code?: string }) => err.code === '23505',
    );
    assert.deepEqual([await ticketsNumbered(11), await ticketsNumbered(12)], [0, 0]);
    assert.equal(await lastNumber('taken'), undefined);
    const [record] = await db.query<{ fingerprint: string }>('SELECT fingerprint FROM idempotency_keys WHERE branch_id = $1 AND key = $2', [
      branchId,
      'taken',
    ]);
    assert.equal(record!.fingerprint, 'f', 'the taken key keeps its first request');
  },
);
