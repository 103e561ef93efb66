// The outbox's claim (src/store/outbox.ts claimLaneJobs), one statement on both engines: only due,
// unfinished, unleased jobs of one lane, oldest first, up to the limit and within each account's
// and endpoint's share, each leased to the claimer with its attempt counted; concurrent claimers
// (on PostgreSQL, separate nodes) never claim a job twice.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import type { Db } from '../../src/core/db.ts';
import { claimLaneJobs, enqueueJob, finishJob } from '../../src/store/outbox.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';
import { createAccount, createBranch } from '../../src/actions/provision.ts';

let store: TestStore;
let db: Db;
let other: Db;
const NOW = 1_700_000_000_000;
const LEASE = 30_000;

before(async () => {
  store = await createTestStore();
  const config = loadConfig({ LOG_LEVEL: 'silent', ...store.env });
  db = openDb(config);
  await db.migrate();
  // A second node on the same database; SQLite has one writer per process, so the same one.
  other = db.dialect === 'postgres' ? openDb(config) : db;
});
after(async () => {
  if (other !== db) await other.close();
  await db.close();
  await store.drop();
});

async function jobs(prefix: string, runAts: number[]): Promise<string[]> {
  const ids = runAts.map((_, i) => `${prefix}_${String(i).padStart(3, '0')}`);
  await db.write(async (tx) => {
    for (const [i, runAt] of runAts.entries()) {
      await enqueueJob(tx, { id: ids[i]!, kind: 'test', key: `${prefix}:${i}`, payload: { i }, runAt, createdAt: NOW });
    }
  });
  return ids;
}

/** A claim in a transaction of its own, as the runner makes one. */
const claimJobs = (d: Db, worker: string, now: number, leaseMs: number, limit: number, ...fair: FairArgs) =>
  d.write((tx) => claimLaneJobs(tx, worker, now, leaseMs, limit, ...fair));
type FairArgs = Parameters<typeof claimLaneJobs> extends [unknown, unknown, unknown, unknown, unknown, ...infer R] ? R : never;

const lease = async (id: string) => {
  const [row] = await db.query<{ locked_by: string | null; locked_until: number | null; attempts: number }>(
    'SELECT locked_by, locked_until, attempts FROM jobs WHERE id = $1',
    [id],
  );
  return { locked_by: row!.locked_by, locked_until: Number(row!.locked_until), attempts: Number(row!.attempts) };
};

test('a claim takes the due jobs, oldest first, up to its limit, and leases each with its attempt counted', async () => {
  const ids = await jobs('a', [NOW - 10, NOW - 30, NOW + 60_000, NOW - 20, NOW]);
  const done = (await jobs('a_done', [NOW - 40]))[0]!;
  await db.write((tx) => finishJob(tx, done, NOW));
  const first = await claimJobs(db, 'w1', NOW, LEASE, 2);
  assert.deepEqual(
    first.map((j) => j.id),
    [ids[1], ids[3]],
    'the two oldest due',
  );
  assert.deepEqual(
    first.map((j) => [j.kind, j.attempts, JSON.parse(j.payload).i]),
    [
      ['test', 1, 1],
      ['test', 1, 3],
    ],
  );
  assert.deepEqual(await lease(ids[1]!), { locked_by: 'w1', locked_until: NOW + LEASE, attempts: 1 });
  const rest = await claimJobs(db, 'w2', NOW, LEASE, 10);
  assert.deepEqual(
    rest.map((j) => j.id),
    [ids[0], ids[4]],
    'neither the leased, the finished nor the future ones',
  );
  assert.deepEqual(await claimJobs(db, 'w3', NOW + LEASE - 1, LEASE, 10), [], 'leases hold until they end');
  const again = await claimJobs(db, 'w3', NOW + LEASE + 1, LEASE, 10);
  assert.deepEqual(
    again.map((j) => [j.id, j.attempts]),
    [
      [ids[1], 2],
      [ids[3], 2],
      [ids[0], 2],
      [ids[4], 2],
    ],
    "a dead worker's jobs are claimed again",
  );
  await db.write(async (tx) => {
    for (const id of ids) await finishJob(tx, id, NOW);
  });
});

test('claimers at once never take one job twice', async () => {
  const ids = await jobs(
    'b',
    Array.from({ length: 40 }, (_, i) => NOW + 100_000 + i),
  );
  const at = NOW + 200_000;
  const claims = await Promise.all([db, other, db, other].map((d, i) => claimJobs(d, `node${i}`, at, LEASE, 15)));
  const claimed = claims.flat().map((j) => j.id);
  assert.equal(new Set(claimed).size, claimed.length, 'no job in two claims');
  assert.deepEqual([...claimed].sort(), ids, 'every due job claimed once');
  for (const c of claims) assert.ok(c.length <= 15);
});

test('a claim takes one lane, and gives no account or endpoint more than its share (one slot to a failing endpoint)', async () => {
  const at = NOW + 210_000; // while the jobs of the test before are still leased
  const { a, b, failing } = await db.write(async (tx) => {
    const accounts = [await createAccount(tx, { name: 'A', plan: 'pro' }, NOW), await createAccount(tx, { name: 'B', plan: 'pro' }, NOW)];
    const branch = await createBranch(tx, { accountId: accounts[0]!.id, name: 'A1', timezone: 'UTC' }, NOW);
    await tx.run(
      `INSERT INTO webhook_endpoints (id, branch_id, mode, url, enabled_events, secret, failing_since, created_at, updated_at)
       VALUES ('we_failing', $1, 'test', 'https://example.test/', '["*"]', 'whsec_x', $2, $2, $2)`,
      [branch.id, NOW],
    );
    return { a: accounts[0]!.id, b: accounts[1]!.id, failing: 'we_failing' };
  });
  const add = (id: string, lane: 'ring' | 'webhook', accountId: string, endpointId: string | null, runAt: number) =>
    db.write((tx) =>
      enqueueJob(tx, {
        id,
        kind: lane === 'ring' ? 'reminder' : 'webhook',
        key: id,
        payload: {},
        runAt,
        createdAt: NOW,
        lane,
        accountId,
        endpointId,
      }),
    );
  await add('f_ring', 'ring', a, null, at - 100);
  for (let i = 1; i <= 6; i++) await add(`f_a_e1_${i}`, 'webhook', a, 'we_e1', at - 90 + i);
  for (let i = 1; i <= 2; i++) await add(`f_a_failing_${i}`, 'webhook', a, failing, at - 80 + i);
  for (let i = 1; i <= 2; i++) await add(`f_b_e3_${i}`, 'webhook', b, 'we_e3', at - 70 + i);
  // This node already runs one delivery of A, to e1: A may take 4 more, e1 2 more, the failing endpoint 1.
  const shares = { perAccount: 5, perEndpoint: 3, busy: { accounts: { [a]: 1 }, endpoints: { we_e1: 1 } } };
  const got = await claimJobs(db, 'fair', at, LEASE, 20, 'webhook', shares);
  assert.deepEqual(
    got.map((j) => j.id),
    ['f_a_e1_1', 'f_a_e1_2', 'f_a_failing_1', 'f_b_e3_1', 'f_b_e3_2'],
    'oldest first within each share; no ring job in the webhook lane',
  );
  assert.deepEqual(got.map((j) => [j.lane, j.accountId, j.endpointId]).slice(0, 1), [['webhook', a, 'we_e1']]);
  const rings = await claimJobs(db, 'fair', at, LEASE, 20, 'ring', shares);
  assert.deepEqual(
    rings.map((j) => j.id),
    ['f_ring'],
    'the ring lane has its own claim',
  );
  assert.deepEqual(
    await claimJobs(db, 'fair', at, LEASE, 20, 'webhook', { ...shares, busy: { accounts: { [a]: 5 }, endpoints: {} } }),
    [],
    'an account at its share gets nothing more, whatever its backlog',
  );
});
