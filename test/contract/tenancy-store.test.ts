// The tenancy and credentials store functions round-trip on whichever engine this run uses.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import type { Db } from '../../src/core/db.ts';
import {
  countBranches,
  countOpenTicketsInQueue,
  deleteQueue,
  getAccount,
  getBranch,
  getQueue,
  insertAccount,
  insertBranch,
  insertQueue,
  listBranches,
  listQueues,
  setAccountPlan,
  updateBranch,
  type Branch,
} from '../../src/store/tenancy.ts';
import {
  findApiKeyByHash,
  findUserByEmail,
  getApiKey,
  getUser,
  insertApiKey,
  insertUser,
  listApiKeys,
  listUsers,
  removeUser,
  revokeApiKey,
  setUserPassword,
  setUserRole,
  touchApiKeys,
  type ApiKeyRecord,
} from '../../src/store/credentials.ts';
import { DEFAULT_SETTINGS } from '../../src/domain/branch-settings.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
let db: Db;
before(async () => {
  store = await createTestStore();
  db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  await db.migrate();
});
after(async () => {
  await db.close();
  await store.drop();
});

const T0 = Date.parse('2026-11-22T08:00:00.000Z');

const branch = (id: string, accountId: string): Branch => ({
  id,
  accountId,
  name: `Branch ${id}`,
  timezone: 'Europe/Paris',
  defaultQueue: 'A',
  settings: { ...DEFAULT_SETTINGS, expiry_hours: 4, voice: { enabled: false, language: 'fr' } },
  createdAt: T0,
  updatedAt: T0,
});

const key = (id: string, branchId: string, hash: string): ApiKeyRecord => ({
  id,
  accountId: 'acct_t1',
  branchId,
  mode: 'live',
  name: 'POS',
  hash,
  last4: 'abcd',
  createdAt: T0,
  revokedAt: null,
  lastUsedAt: null,
});

test('accounts: insert, read, change plan', async () => {
  await db.write((tx) => insertAccount(tx, { id: 'acct_t1', name: 'Café', plan: 'free', createdAt: T0 }));
  assert.deepEqual(await getAccount(db, 'acct_t1'), { id: 'acct_t1', name: 'Café', plan: 'free', createdAt: T0 });
  assert.equal(await getAccount(db, 'acct_none'), undefined);
  assert.equal(await db.write((tx) => setAccountPlan(tx, 'acct_t1', 'business')), true);
  assert.equal((await getAccount(db, 'acct_t1'))?.plan, 'business');
  assert.equal(await db.write((tx) => setAccountPlan(tx, 'acct_none', 'pro')), false);
});

test('branches: insert, read with settings, list and count per account, update', async () => {
  const b1 = branch('br_t1', 'acct_t1');
  await db.write(async (tx) => {
    await insertBranch(tx, b1);
    await insertBranch(tx, branch('br_t2', 'acct_t1'));
  });
  assert.deepEqual(await getBranch(db, 'br_t1'), b1);
  assert.equal(await getBranch(db, 'br_none'), undefined);
  assert.deepEqual(
    (await listBranches(db, 'acct_t1')).map((b) => b.id),
    ['br_t1', 'br_t2'],
  );
  assert.equal(await countBranches(db, 'acct_t1'), 2);
  assert.equal(await countBranches(db, 'acct_none'), 0);

  const changed: Branch = {
    ...b1,
    name: 'Renamed',
    timezone: 'Asia/Tokyo',
    defaultQueue: 'B',
    settings: { ...b1.settings, reminder_count: 0 },
    updatedAt: T0 + 1,
  };
  await db.write((tx) => updateBranch(tx, changed));
  assert.deepEqual(await getBranch(db, 'br_t1'), changed);
});

test('a branch stored before a setting existed reads with its default', async () => {
  await db.write((tx) =>
    tx.run(
      `INSERT INTO branches (id, account_id, name, timezone, default_queue, settings, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      ['br_old', 'acct_t1', 'Old', 'UTC', 'A', JSON.stringify({ expiry_hours: 2 }), T0, T0],
    ),
  );
  const b = await getBranch(db, 'br_old');
  assert.equal(b?.settings.expiry_hours, 2);
  assert.deepEqual(b?.settings.voice, DEFAULT_SETTINGS.voice);
});

test('queues: insert once per branch, list in name order, delete, count open tickets', async () => {
  assert.equal(await db.write((tx) => insertQueue(tx, { branchId: 'br_t1', name: 'B', createdAt: T0 })), true);
  assert.equal(await db.write((tx) => insertQueue(tx, { branchId: 'br_t1', name: 'A', createdAt: T0 + 1 })), true);
  assert.equal(
    await db.write((tx) => insertQueue(tx, { branchId: 'br_t1', name: 'A', createdAt: T0 + 2 })),
    false,
    'a duplicate is reported, not thrown',
  );
  assert.equal(await db.write((tx) => insertQueue(tx, { branchId: 'br_t2', name: 'A', createdAt: T0 })), true, 'names are per branch');
  assert.deepEqual(await listQueues(db, 'br_t1'), [
    { branchId: 'br_t1', name: 'A', createdAt: T0 + 1 },
    { branchId: 'br_t1', name: 'B', createdAt: T0 },
  ]);
  assert.deepEqual(await getQueue(db, 'br_t1', 'B'), { branchId: 'br_t1', name: 'B', createdAt: T0 });
  assert.equal(await getQueue(db, 'br_t1', 'b'), undefined, 'names are case-sensitive on both engines');
  assert.equal(await countOpenTicketsInQueue(db, 'br_t1', 'B'), 0);
  assert.equal(await db.write((tx) => deleteQueue(tx, 'br_t1', 'B')), true);
  assert.equal(await db.write((tx) => deleteQueue(tx, 'br_t1', 'B')), false);
  assert.deepEqual(
    (await listQueues(db, 'br_t2')).map((q) => q.name),
    ['A'],
  );
});

test('API keys: found by hash only, listed newest first, revoked once, last use recorded', async () => {
  await db.write(async (tx) => {
    await insertApiKey(tx, key('key_t1', 'br_t1', 'a'.repeat(64)));
    await insertApiKey(tx, { ...key('key_t2', 'br_t1', 'b'.repeat(64)), mode: 'test', name: null });
    await insertApiKey(tx, key('key_t3', 'br_t2', 'c'.repeat(64)));
  });
  assert.deepEqual(await findApiKeyByHash(db, 'a'.repeat(64)), key('key_t1', 'br_t1', 'a'.repeat(64)));
  assert.equal(await findApiKeyByHash(db, 'A'.repeat(64)), undefined);
  assert.equal((await getApiKey(db, 'key_t2'))?.mode, 'test');
  assert.deepEqual(
    (await listApiKeys(db, 'br_t1')).map((k) => k.id),
    ['key_t2', 'key_t1'],
  );
  await assert.rejects(
    db.write((tx) => insertApiKey(tx, key('key_t4', 'br_t1', 'a'.repeat(64)))),
    'two keys cannot share a hash',
  );

  assert.equal(await db.write((tx) => revokeApiKey(tx, 'key_t1', T0 + 5)), true);
  assert.equal(await db.write((tx) => revokeApiKey(tx, 'key_t1', T0 + 6)), false, 'revoking twice keeps the first time');
  assert.equal((await findApiKeyByHash(db, 'a'.repeat(64)))?.revokedAt, T0 + 5);

  await db.write((tx) => touchApiKeys(tx, ['key_t2', 'key_t3'], T0 + 9));
  assert.equal((await getApiKey(db, 'key_t2'))?.lastUsedAt, T0 + 9);
  assert.equal((await getApiKey(db, 'key_t1'))?.lastUsedAt, null);
});

test('users: unique email (case-insensitive lookup), role and password changes, soft removal', async () => {
  const user = {
    id: 'usr_t1',
    accountId: 'acct_t1',
    email: 'owner@example.test',
    role: 'owner' as const,
    passwordHash: 'scrypt$x',
    createdAt: T0,
    removedAt: null,
  };
  await db.write((tx) => insertUser(tx, user));
  await db.write((tx) => insertUser(tx, { ...user, id: 'usr_t2', email: 'staff@example.test', role: 'staff' }));
  assert.deepEqual(await findUserByEmail(db, 'Owner@Example.TEST'), user);
  assert.deepEqual(await getUser(db, 'usr_t1'), user);
  await assert.rejects(
    db.write((tx) => insertUser(tx, { ...user, id: 'usr_t3' })),
    'an email belongs to one user',
  );

  await db.write((tx) => setUserPassword(tx, 'usr_t1', 'scrypt$y'));
  assert.equal((await getUser(db, 'usr_t1'))?.passwordHash, 'scrypt$y');
  assert.equal(await db.write((tx) => setUserRole(tx, 'usr_t2', 'manager')), true);
  assert.equal((await getUser(db, 'usr_t2'))?.role, 'manager');

  assert.equal(await db.write((tx) => removeUser(tx, 'usr_t2', T0 + 3)), true);
  assert.equal(await db.write((tx) => removeUser(tx, 'usr_t2', T0 + 4)), false);
  assert.equal(await db.write((tx) => setUserRole(tx, 'usr_t2', 'owner')), false, 'a removed user keeps no rights to change');
  assert.deepEqual(
    (await listUsers(db, 'acct_t1')).map((u) => u.id),
    ['usr_t1'],
  );
  assert.equal((await getUser(db, 'usr_t2'))?.removedAt, T0 + 3);
});
