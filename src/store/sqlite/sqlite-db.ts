// The embedded store: node:sqlite (built into Node, no native build), WAL.
//
// Group commit: a durable commit costs one fsync, which caps a single connection at a few
// thousand commits a second. Writes that arrive while a batch is being built share the batch's
// transaction and its one fsync; every write still resolves only after the flush that makes its
// COMMIT durable. Each write runs inside its own SAVEPOINT, so a write that throws is rolled back
// alone. Reads use a second connection, which in WAL mode sees only committed data.
//
// The flush runs off the main thread (decision 0001): SQLite commits with synchronous=NORMAL,
// which writes the WAL frames without syncing them, and we then fdatasync the WAL file on libuv's
// thread pool before resolving the batch. That is the sync synchronous=FULL would have done
// inside COMMIT, while the event loop keeps parsing requests for the next batch.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { closeSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { runAfterCommitHooks } from '../db.ts';
import type { Db, Dialect, Queryable, Row, Tx } from '../../core/db.ts';
import type { CreateOutcome, CreateRequest } from '../../core/ticket-create.ts';
import { createInTransaction } from './create-transaction.ts';
import { loadMigrations, MIGRATIONS_TABLE_SQL } from '../migrations.ts';
import { inCallerContext, inSpan, outsideTraces } from '../../telemetry/tracing.ts';

type Pending = {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
};

// $1 → ?1: SQLite's numbered parameters bind by position exactly like PostgreSQL's.
const toSqlite = (sql: string): string => sql.replace(/\$(\d+)/g, '?$1');

function normalise(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === undefined) return null;
  return v;
}

class Connection implements Queryable {
  readonly dialect: Dialect = 'sqlite';
  readonly db: DatabaseSync;
  private readonly cache = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  prepare(sql: string): StatementSync {
    let st = this.cache.get(sql);
    if (st === undefined) {
      st = this.db.prepare(toSqlite(sql));
      this.cache.set(sql, st);
    }
    return st;
  }

  querySync<T>(sql: string, params: readonly unknown[] = []): T[] {
    return this.prepare(sql).all(...(params.map(normalise) as never[])) as T[];
  }

  async query<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.querySync<T>(sql, params);
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return Number(this.prepare(sql).run(...(params.map(normalise) as never[])).changes);
  }
}

let savepointSeq = 0;

class SqliteTx implements Tx {
  readonly dialect: Dialect = 'sqlite';
  readonly forUpdate = '';
  readonly hooks: Array<() => void> = [];
  private readonly conn: Connection;

  constructor(conn: Connection) {
    this.conn = conn;
  }
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.conn.query<T>(sql, params);
  }
  run(sql: string, params?: readonly unknown[]): Promise<number> {
    return this.conn.run(sql, params);
  }
  async later(sql: string, params?: readonly unknown[]): Promise<void> {
    await this.conn.run(sql, params);
  }
  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = `sp${++savepointSeq}`;
    this.conn.db.exec(`SAVEPOINT ${name}`);
    const mark = this.hooks.length;
    try {
      const result = await fn();
      this.conn.db.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      this.conn.db.exec(`ROLLBACK TO ${name}`);
      this.conn.db.exec(`RELEASE ${name}`);
      this.hooks.length = mark;
      throw err;
    }
  }
  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }
}

export type SqliteOptions = {
  file: string;
  synchronous: 'FULL' | 'NORMAL';
  maxBatch: number;
  /** How the WAL reaches the disk (fdatasync on the thread pool); replaceable to test the ordering. */
  syncWal?: (fd: number) => Promise<void>;
};

type Committed = { batch: Pending[]; outcomes: Array<{ ok: boolean; value: unknown }>; hooks: Array<() => void> };

function finish(c: Committed): void {
  runAfterCommitHooks(c.hooks);
  c.batch.forEach((p, i) => {
    const o = c.outcomes[i]!;
    if (o.ok) p.resolve(o.value);
    else p.reject(o.value);
  });
}

/** A write's span lasts from the call to its durable commit: the batch it waits for included. */
const WRITE_SPAN = { 'db.system.name': 'sqlite', 'db.operation.name': 'write' };
const IN_TRACE = { inTraceOnly: true };

const fdatasyncAsync = (fd: number): Promise<void> =>
  new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));

export class SqliteDb implements Db {
  readonly dialect: Dialect = 'sqlite';
  private readonly writer: Connection;
  private readonly reader: Connection;
  private readonly maxBatch: number;
  private readonly walFile: string | null;
  private readonly syncWal: (fd: number) => Promise<void>;
  private walFd: number | null = null;
  private queue: Pending[] = [];
  private flushing = false;
  /** Batches committed since the flush in progress began; the next flush covers them. */
  private unsynced: Committed[] = [];
  private syncing: Promise<void> | null = null;
  private broken: Error | null = null;
  private closed = false;
  onGroupCommit?: (writes: number) => void;

  constructor(opts: SqliteOptions) {
    if (opts.file !== ':memory:') mkdirSync(path.dirname(opts.file), { recursive: true });
    // FULL is kept by syncing the WAL ourselves after COMMIT (see above); NORMAL skips that sync.
    this.walFile = opts.synchronous === 'FULL' && opts.file !== ':memory:' ? `${opts.file}-wal` : null;
    this.syncWal = opts.syncWal ?? fdatasyncAsync;
    const open = (): DatabaseSync => {
      const db = new DatabaseSync(opts.file, { timeout: 5000 });
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec('PRAGMA temp_store = MEMORY');
      db.exec('PRAGMA cache_size = -65536');
      db.exec('PRAGMA mmap_size = 268435456');
      db.exec('PRAGMA foreign_keys = ON');
      db.exec('PRAGMA busy_timeout = 5000');
      return db;
    };
    this.writer = new Connection(open());
    this.reader = opts.file === ':memory:' ? this.writer : new Connection(open());
    this.maxBatch = opts.maxBatch;
  }

  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.reader.query<T>(sql, params);
  }
  run(sql: string, params?: readonly unknown[]): Promise<number> {
    return this.write((tx) => tx.run(sql, params));
  }

  /** One write of the group commit, like any other (create-transaction.ts). */
  commitCreate(req: CreateRequest): Promise<CreateOutcome> {
    return createInTransaction(this, req);
  }

  /** Every write here shares the group commit, each in its savepoint. */
  writeShared<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.write(fn);
  }

  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    if (this.broken !== null) return Promise.reject(this.broken);
    return inSpan(
      'store.write',
      WRITE_SPAN,
      () =>
        new Promise<T>((resolve, reject) => {
          // The batch runs every caller's work in that caller's trace; its commit is in none.
          this.queue.push({ fn: inCallerContext(fn), resolve: resolve as (v: unknown) => void, reject });
          if (!this.flushing) {
            this.flushing = true;
            // setImmediate lets every request already parsed in this turn of the loop join the batch.
            setImmediate(outsideTraces(() => void this.flush()));
          }
        }),
      IN_TRACE,
    );
  }

  // One batch per turn of the event loop: between batches the loop parses the requests that
  // form the next one. A batch runs while the previous one's WAL flush is still in progress
  // (pipelining); callers are answered strictly in commit order, each after a flush that began
  // after its COMMIT.
  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, this.maxBatch);
    this.onGroupCommit?.(batch.length);
    const committed = await this.commitBatch(batch);
    if (committed !== null) {
      if (this.walFile === null) finish(committed);
      else {
        this.unsynced.push(committed);
        this.startSync();
      }
    }
    if (this.queue.length > 0 && this.broken === null) setImmediate(() => void this.flush());
    else this.flushing = false;
  }

  private startSync(): void {
    if (this.syncing !== null || this.unsynced.length === 0) return;
    const covered = this.unsynced.splice(0);
    this.syncing = (async () => {
      try {
        this.walFd ??= openSync(this.walFile!, 'r');
        await this.syncWal(this.walFd);
      } catch (err) {
        // Committed but not known to be on disk: nobody may be told it is, and after a failed
        // fsync the page cache cannot be trusted either, so the store stops taking writes.
        this.broken = err instanceof Error ? err : new Error(String(err));
        for (const c of [...covered, ...this.unsynced.splice(0)]) for (const p of c.batch) p.reject(err);
        for (const p of this.queue.splice(0)) p.reject(err);
        return;
      } finally {
        this.syncing = null;
      }
      for (const c of covered) finish(c);
      this.startSync();
    })();
  }

  /** Runs a batch in one transaction and commits it (not yet synced); null if it failed whole. */
  private async commitBatch(batch: Pending[]): Promise<Committed | null> {
    const tx = new SqliteTx(this.writer);
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      this.writer.db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      for (const p of batch) p.reject(err);
      return null;
    }
    for (const p of batch) {
      try {
        outcomes.push({ ok: true, value: await tx.savepoint(() => p.fn(tx)) });
      } catch (err) {
        outcomes.push({ ok: false, value: err });
      }
    }
    try {
      this.writer.db.exec('COMMIT');
    } catch (err) {
      try {
        this.writer.db.exec('ROLLBACK');
      } catch {
        // already rolled back by SQLite
      }
      for (const p of batch) p.reject(err);
      return null;
    }
    return { batch, outcomes, hooks: tx.hooks };
  }

  async migrate(): Promise<string[]> {
    const db = this.writer.db;
    db.exec(MIGRATIONS_TABLE_SQL);
    const applied: string[] = [];
    // BEGIN IMMEDIATE takes the file's write lock, so two processes cannot apply the same step.
    db.exec('BEGIN IMMEDIATE');
    try {
      const done = new Set(
        this.writer.querySync<{ version: number }>('SELECT version FROM schema_migrations').map((r) => Number(r.version)),
      );
      for (const m of loadMigrations('sqlite')) {
        if (done.has(m.version)) continue;
        db.exec(m.sql);
        this.writer.querySync('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          Date.now(),
        ]);
        applied.push(m.name);
      }
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
    if (this.walFile !== null) {
      this.walFd ??= openSync(this.walFile, 'r');
      await this.syncWal(this.walFd);
    }
    return applied;
  }

  async ping(): Promise<void> {
    if (this.broken !== null) throw this.broken;
    this.reader.querySync('SELECT 1');
  }

  // SQLite's data_version moves when another connection commits, and the writer is the only
  // connection of this process that writes: so here it moves only for other processes.
  dataVersion(): number | null {
    return Number(this.writer.querySync<{ data_version: number }>('PRAGMA data_version')[0]!.data_version);
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing || this.syncing !== null) await new Promise((r) => setImmediate(r));
    if (this.reader !== this.writer) this.reader.db.close();
    this.writer.db.close();
    if (this.walFd !== null) closeSync(this.walFd);
  }
}
