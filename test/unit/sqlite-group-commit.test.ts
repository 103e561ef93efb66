// The embedded store acknowledges a write only once its WAL is on disk: the flush runs off the
// main thread, so these tests hold it open and watch what callers and after-commit hooks see.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteDb } from '../../src/store/sqlite/sqlite-db.ts';

type Gate = { fds: number[]; release(err?: Error): void };

function openWithGate(t: { after(fn: () => Promise<void> | void): void }): { db: SqliteDb; gate: Gate; flushes: () => number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rb-gc-'));
  const waiting: Array<{ resolve(): void; reject(e: Error): void }> = [];
  let flushes = 0;
  const gate: Gate = {
    fds: [],
    release(err) {
      for (const w of waiting.splice(0)) err ? w.reject(err) : w.resolve();
    },
  };
  const db = new SqliteDb({
    file: path.join(dir, 'x.db'),
    synchronous: 'FULL',
    maxBatch: 256,
    syncWal: (fd) => {
      flushes++;
      gate.fds.push(fd);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  });
  t.after(async () => {
    gate.release();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, gate, flushes: () => flushes };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** openWithGate with a table `t (v INTEGER)` already created (its own flush let through). */
async function openWithTable(t: Parameters<typeof openWithGate>[0]): Promise<ReturnType<typeof openWithGate>> {
  const opened = openWithGate(t);
  const ddl = opened.db.run('CREATE TABLE t (v INTEGER)');
  await tick();
  opened.gate.release();
  await ddl;
  return opened;
}

test('a write resolves, and its after-commit hooks run, only once the WAL flush has finished', async (t) => {
  const { db, gate } = await openWithTable(t);
  let resolved = false;
  let hooked = false;
  const w = db
    .write(async (tx) => {
      await tx.run('INSERT INTO t (v) VALUES (1)');
      tx.afterCommit(() => (hooked = true));
    })
    .then(() => (resolved = true));
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(gate.fds.length > 0, true, 'the WAL flush was started');
  assert.deepEqual([resolved, hooked], [false, false]);
  gate.release();
  await w;
  assert.deepEqual([resolved, hooked], [true, true]);
});

test('writes arriving while a flush is in progress share the next batch and its one flush', async (t) => {
  const { db, gate, flushes } = await openWithTable(t);
  const first = db.write((tx) => tx.run('INSERT INTO t (v) VALUES (0)'));
  await tick();
  await tick();
  const before = flushes();
  const rest = Array.from({ length: 20 }, (_, i) => db.write((tx) => tx.run('INSERT INTO t (v) VALUES ($1)', [i + 1])));
  gate.release();
  await first;
  await tick();
  await tick();
  gate.release();
  await Promise.all(rest);
  assert.equal(flushes() - before, 1, 'the 20 writes were flushed together');
  assert.equal((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM t'))[0]!.n, 21);
});

test('a failed flush fails the writes it held and every later one: nobody is told a write is durable when it may not be', async (t) => {
  const { db, gate } = await openWithTable(t);
  const w = db.write((tx) => tx.run('INSERT INTO t (v) VALUES (1)'));
  await tick();
  await tick();
  gate.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  await assert.rejects(w, /EIO/);
  // After a failed fsync the page cache cannot be trusted: the store takes no more writes and
  // reports itself unready, so the node leaves the load balancer instead of losing answers.
  await assert.rejects(
    db.write((tx) => tx.run('INSERT INTO t (v) VALUES (2)')),
    /EIO/,
  );
  await assert.rejects(db.ping(), /EIO/);
});
