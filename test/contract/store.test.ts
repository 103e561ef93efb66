// The store contract: what every module written against src/store/db.ts may rely on, checked on
// whichever engine this run uses (SQLite by default, PostgreSQL with TEST_DATABASE_URL).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import type { Db } from '../../src/core/db.ts';
import { loadMigrations, MIGRATIONS_TABLE_SQL } from '../../src/store/migrations.ts';
import { getAccount, insertAccount } from '../../src/store/tenancy.ts';
import { createTestStore, storeName, type TestStore } from '../helpers/store.ts';

const stores: TestStore[] = [];
const dbs: Db[] = [];

async function freshStore(): Promise<{ env: Record<string, string>; open: () => Db }> {
  const store = await createTestStore();
  stores.push(store);
  const config = loadConfig({ LOG_LEVEL: 'silent', ...store.env });
  return {
    env: store.env,
    open: () => {
      const db = openDb(config);
      dbs.push(db);
      return db;
    },
  };
}

let db: Db;
before(async () => {
  db = (await freshStore()).open();
  await db.migrate();
});
after(async () => {
  for (const d of dbs) await d.close().catch(() => {});
  for (const s of stores) await s.drop();
});

const account = (id: string) => ({ id, name: `Account ${id}`, plan: 'pro' as const, createdAt: 1_700_000_000_000 });
const accountIds = async (prefix: string): Promise<string[]> =>
  (await db.query<{ id: string }>('SELECT id FROM accounts WHERE id LIKE $1 ORDER BY id', [`${prefix}%`])).map((r) => r.id);

test(`the store under test is ${storeName}`, () => {
  assert.equal(db.dialect, storeName);
});

test('migrations apply on an empty database, then are a no-op', async () => {
  const fresh = (await freshStore()).open();
  const all = loadMigrations(fresh.dialect).map((m) => m.name);
  assert.ok(all.length >= 1);
  assert.deepEqual(await fresh.migrate(), all);
  const rows = await fresh.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  assert.deepEqual(
    rows.map((r) => Number(r.version)),
    loadMigrations(fresh.dialect).map((m) => m.version),
  );
  assert.deepEqual(await fresh.migrate(), []);
  assert.equal((await fresh.query('SELECT version FROM schema_migrations')).length, all.length);
  await fresh.ping();
});

test('three nodes migrating one database at the same moment apply each step exactly once', async () => {
  const target = await freshStore();
  // The bookkeeping table exists already (as after a first start), so nothing serialises the
  // three before they race for the steps themselves.
  const setup = target.open();
  await setup.write((tx) => tx.run(MIGRATIONS_TABLE_SQL));
  await setup.close();
  // Real concurrency: node:sqlite is synchronous, so three instances in one thread would simply
  // take turns. Each worker opens its own Db and all start migrating together off a barrier.
  const barrier = new Int32Array(new SharedArrayBuffer(4));
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    (async () => {
      const { openDb } = await import(workerData.app);
      const { loadConfig } = await import(workerData.config);
      const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...workerData.env }));
      Atomics.add(workerData.barrier, 0, 1);
      while (Atomics.load(workerData.barrier, 0) < 3) Atomics.wait(workerData.barrier, 0, Atomics.load(workerData.barrier, 0), 50);
      try {
        parentPort.postMessage({ applied: await db.migrate() });
      } catch (err) {
        parentPort.postMessage({ error: String(err && err.stack || err) });
      } finally {
        await db.close();
      }
    })();`;
  const workerData = {
    app: new URL('../../src/store/open-db.ts', import.meta.url).href,
    config: new URL('../../src/config.ts', import.meta.url).href,
    env: target.env,
    barrier,
  };
  const results = await Promise.all(
    [0, 1, 2].map(
      () =>
        new Promise<{ applied?: string[]; error?: string }>((resolve, reject) => {
          const w = new Worker(code, { eval: true, workerData });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  for (const r of results) assert.equal(r.error, undefined, r.error);
  const applied = results.flatMap((r) => r.applied ?? []).sort();
  const all = loadMigrations(db.dialect)
    .map((m) => m.name)
    .sort();
  assert.deepEqual(applied, all, 'each migration applied by exactly one node');

  const check = target.open();
  assert.equal((await check.query('SELECT version FROM schema_migrations')).length, all.length);
  assert.deepEqual(await check.migrate(), []);
});

test('group commit: of 100 concurrent writes, the 10 that throw roll back alone', async () => {
  const ran: number[] = [];
  const visibleInHook: Array<Promise<unknown[]>> = [];
  const outcomes = await Promise.allSettled(
    Array.from({ length: 100 }, (_, i) =>
      db.write(async (tx) => {
        const id = `acct_gc${String(i).padStart(3, '0')}`;
        await insertAccount(tx, account(id));
        tx.afterCommit(() => {
          ran.push(i);
          visibleInHook.push(db.query('SELECT id FROM accounts WHERE id = $1', [id]));
        });
        if (i % 10 === 9) throw new Error(`write ${i} fails`);
        return i;
      }),
    ),
  );

  outcomes.forEach((o, i) => {
    if (i % 10 === 9) {
      assert.equal(o.status, 'rejected');
      assert.equal((o as PromiseRejectedResult).reason.message, `write ${i} fails`, 'each caller gets its own error');
    } else {
      assert.deepEqual(o, { status: 'fulfilled', value: i });
    }
  });
  const committed = await accountIds('acct_gc');
  assert.equal(committed.length, 90);
  assert.deepEqual(
    committed,
    Array.from({ length: 100 }, (_, i) => i)
      .filter((i) => i % 10 !== 9)
      .map((i) => `acct_gc${String(i).padStart(3, '0')}`),
  );

  // After-commit hooks: exactly the committed writes', and each saw its row committed.
  assert.deepEqual(
    ran.sort((a, b) => a - b),
    Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 10 !== 9),
  );
  for (const rows of await Promise.all(visibleInHook)) assert.equal(rows.length, 1);
});

test('afterCommit runs once the write is committed and before the caller hears of it', async () => {
  let ran = false;
  let seenInside: unknown[] | null = null;
  await db.write(async (tx) => {
    await insertAccount(tx, account('acct_hook1'));
    tx.afterCommit(() => {
      ran = true;
    });
    // Readers outside the transaction do not see uncommitted work, and the hook has not run.
    seenInside = await db.query('SELECT id FROM accounts WHERE id = $1', ['acct_hook1']);
    assert.equal(ran, false);
  });
  assert.deepEqual(seenInside, []);
  assert.equal(ran, true);
});

test('afterCommit does not run for a write that rolls back, nor for a failed savepoint', async () => {
  const ran: string[] = [];
  await assert.rejects(
    db.write(async (tx) => {
      await insertAccount(tx, account('acct_rb1'));
      tx.afterCommit(() => ran.push('rolled back'));
      throw new Error('no');
    }),
    /no/,
  );

  await db.write(async (tx) => {
    await insertAccount(tx, account('acct_sp_kept'));
    tx.afterCommit(() => ran.push('outer'));
    await assert.rejects(
      tx.savepoint(async () => {
        await insertAccount(tx, account('acct_sp_undone'));
        tx.afterCommit(() => ran.push('inner'));
        throw new Error('inner fails');
      }),
    );
  });
  assert.deepEqual(ran, ['outer']);
  assert.deepEqual(await accountIds('acct_rb'), []);
  assert.deepEqual(await accountIds('acct_sp'), ['acct_sp_kept']);
});

test('a throwing afterCommit hook does not fail or undo the committed write', async () => {
  const value = await db.write(async (tx) => {
    await insertAccount(tx, account('acct_hookthrow'));
    tx.afterCommit(() => {
      throw new Error('hook bug');
    });
    return 'done';
  });
  assert.equal(value, 'done');
  assert.ok(await getAccount(db, 'acct_hookthrow'));
});

test('a constraint violation fails only its own write, with the engine error', async () => {
  await db.write((tx) => insertAccount(tx, account('acct_dup')));
  const [dup, other] = await Promise.allSettled([
    db.write((tx) => insertAccount(tx, account('acct_dup'))),
    db.write((tx) => insertAccount(tx, account('acct_dup_neighbour'))),
  ]);
  assert.equal(dup.status, 'rejected');
  assert.equal(other.status, 'fulfilled');
  assert.deepEqual(await accountIds('acct_dup'), ['acct_dup', 'acct_dup_neighbour']);
});

const INSERT_ACCOUNT = 'INSERT INTO accounts (id, name, plan, created_at) VALUES ($1, $2, $3, $4)';
const accountValues = (id: string) => [id, `Account ${id}`, 'pro', 1_700_000_000_000];
const isUniqueViolation = (err: unknown): boolean => /unique|duplicate/i.test((err as Error).message);

test('a write sent with later that fails fails the commit with its own error, and nothing of the transaction stays', async () => {
  await db.write((tx) => tx.later(INSERT_ACCOUNT, accountValues('acct_later_dup')));
  const ran: string[] = [];
  await assert.rejects(
    db.write(async (tx) => {
      await tx.later(INSERT_ACCOUNT, accountValues('acct_later_a'));
      await tx.later(INSERT_ACCOUNT, accountValues('acct_later_dup'));
      await tx.later(INSERT_ACCOUNT, accountValues('acct_later_b'));
      tx.afterCommit(() => ran.push('committed'));
    }),
    (err) => isUniqueViolation(err),
  );
  // A statement waited for after the failed one is refused too; the caller hears the cause.
  await assert.rejects(
    db.write(async (tx) => {
      await tx.later(INSERT_ACCOUNT, accountValues('acct_later_dup'));
      await tx.query('SELECT id FROM accounts WHERE id = $1', ['acct_later_dup']);
    }),
    (err) => isUniqueViolation(err),
  );
  assert.deepEqual(ran, []);
  assert.deepEqual(await accountIds('acct_later'), ['acct_later_dup']);
  // The connection went back to the pool usable: the next writes commit.
  await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      db.write((tx) => tx.later(INSERT_ACCOUNT, accountValues(`acct_later_n${String(i).padStart(2, '0')}`))),
    ),
  );
  assert.equal((await accountIds('acct_later_n')).length, 12);
});

test('a later write that fails inside a savepoint fails that savepoint only', async () => {
  await db.write((tx) => tx.later(INSERT_ACCOUNT, accountValues('acct_lsp_dup')));
  await db.write(async (tx) => {
    await tx.later(INSERT_ACCOUNT, accountValues('acct_lsp_kept'));
    await assert.rejects(
      tx.savepoint(async () => {
        await tx.later(INSERT_ACCOUNT, accountValues('acct_lsp_undone'));
        await tx.later(INSERT_ACCOUNT, accountValues('acct_lsp_dup'));
      }),
      (err) => isUniqueViolation(err),
    );
    await tx.later(INSERT_ACCOUNT, accountValues('acct_lsp_after'));
  });
  assert.deepEqual(await accountIds('acct_lsp'), ['acct_lsp_after', 'acct_lsp_dup', 'acct_lsp_kept']);
});

test('values round-trip with their types: BIGINT milliseconds, NULL, text, JSON text', async () => {
  const ms = Date.parse('2026-11-22T12:34:56.789Z');
  await db.write((tx) =>
    tx.run('INSERT INTO accounts (id, name, plan, created_at) VALUES ($1, $2, $3, $4)', [
      'acct_types',
      'Ünïcödé "quoted" \'single\'',
      'pro',
      ms,
    ]),
  );
  const [row] = await db.query<{ name: string; created_at: number }>('SELECT name, created_at FROM accounts WHERE id = $1', ['acct_types']);
  assert.equal(row!.name, 'Ünïcödé "quoted" \'single\'');
  assert.equal(Number(row!.created_at), ms);
  assert.equal(typeof row!.created_at, 'number');
  assert.equal(await db.write((tx) => tx.run('UPDATE accounts SET plan = $2 WHERE id = $1', ['acct_nope', 'free'])), 0);
});
