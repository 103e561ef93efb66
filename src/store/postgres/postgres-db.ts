// PostgreSQL through `pg`: a pool sized to the machine (about 8 on 2 cores; more adds latency, not
// throughput), BIGINT returned as numbers (our BIGINTs are millisecond times and counters, far
// below 2^53), and migrations serialised across nodes by an advisory lock.
import pg from 'pg';
import type { Writable } from 'node:stream';
import { createHash } from 'node:crypto';
import { runAfterCommitHooks } from '../db.ts';
import type { Db, Dialect, Row, Tx } from '../../core/db.ts';
import { loadMigrations, MIGRATIONS_TABLE_SQL } from '../migrations.ts';
import { inSpan } from '../../telemetry/tracing.ts';

pg.types.setTypeParser(20, (v) => Number(v)); // int8
pg.types.setTypeParser(1700, (v) => Number(v)); // numeric (aggregates)

const MIGRATION_LOCK = 0x7265_6479; // "redy"

// Named statements are prepared once per connection and reused, saving a parse per query.
const names = new Map<string, string>();
function statementName(sql: string): string {
  let n = names.get(sql);
  if (n === undefined) {
    n = 'rb_' + createHash('sha1').update(sql).digest('hex').slice(0, 20);
    names.set(sql, n);
  }
  return n;
}

function queryConfig(sql: string, params: readonly unknown[] = []): pg.QueryConfig {
  return { name: statementName(sql), text: sql, values: params as unknown[] };
}

class PgTx implements Tx {
  readonly dialect: Dialect = 'postgres';
  readonly forUpdate = 'FOR UPDATE';
  readonly hooks: Array<() => void> = [];
  private readonly client: pg.PoolClient;
  private seq = 0;
  /** Statements sent without waiting (BEGIN, `later`), and the first of them that failed. */
  private inFlight: Array<Promise<void>> = [];
  private failure: Error | null = null;
  /** The connection's socket, corked while statements sent without waiting are held for the next write. */
  private readonly socket: Writable | null;
  private held = false;

  constructor(client: pg.PoolClient) {
    this.client = client;
    const stream = (client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
    this.socket = stream !== undefined && typeof stream.cork === 'function' ? stream : null;
  }
  async query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    const sent = this.client.query(queryConfig(sql, params));
    this.flush();
    return (await sent).rows as T[];
  }
  async run(sql: string, params?: readonly unknown[]): Promise<number> {
    const sent = this.client.query(queryConfig(sql, params));
    this.flush();
    return (await sent).rowCount ?? 0;
  }
  later(sql: string, params?: readonly unknown[]): Promise<void> {
    this.hold();
    this.send(this.client.query(queryConfig(sql, params)));
    return Promise.resolve();
  }
  /**
   * BEGIN travels with the transaction's first statement (the client is pipelined). It cannot
   * fail on a healthy connection (BEGIN inside a transaction is a warning, not an error), and on a
   * broken one nothing sent after it runs either.
   */
  begin(): void {
    this.hold();
    this.send(this.client.query('BEGIN'));
  }
  /**
   * Statements sent without waiting stay in the socket's buffer until the next statement that is
   * waited for (or the COMMIT), and all of them leave in one write: `pg` writes each statement on
   * its own, and a socket write that wakes the backend was 35 % of a ready's CPU on the node
   * (decision 0054). The end of the event loop's turn sends them anyway, so a transaction that
   * awaits something else first (Redis, a timer) never holds them longer than that.
   */
  private hold(): void {
    if (this.held || this.socket === null) return;
    this.held = true;
    this.socket.cork();
    setImmediate(() => this.flush());
  }
  flush(): void {
    if (!this.held) return;
    this.held = false;
    this.socket?.uncork();
  }
  private send(sent: Promise<unknown>): void {
    this.inFlight.push(
      sent.then(
        () => {},
        (err: Error) => {
          this.failure ??= err;
        },
      ),
    );
  }
  /**
   * Waits for everything sent without waiting, and answers what really went wrong: a statement
   * sent by `later` that failed makes every later one fail with "current transaction is
   * aborted", which says nothing. `err` is what the caller saw, if anything.
   */
  async settle(err: unknown = null): Promise<unknown> {
    this.flush();
    while (this.inFlight.length > 0) await Promise.all(this.inFlight.splice(0));
    const cause = this.failure ?? err;
    this.failure = null;
    return cause;
  }
  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const before = await this.settle();
    if (before !== null) throw before;
    const name = `sp${++this.seq}`;
    // settle() has sent everything held: nothing is corked here.
    await this.client.query(`SAVEPOINT ${name}`);
    const mark = this.hooks.length;
    try {
      // Not released: RELEASE would cost a round trip (inside the caller's transaction, after its
      // writes, so often while it holds row locks) and the savepoint ends with the transaction
      // anyway. Names are unique per transaction, so a later ROLLBACK TO still finds its own.
      const result = await fn();
      const failed = await this.settle();
      if (failed !== null) throw failed;
      return result;
    } catch (err) {
      const cause = await this.settle(err);
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      this.hooks.length = mark;
      throw cause;
    }
  }
  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }
}

const WRITE_SPAN = { 'db.system.name': 'postgresql', 'db.operation.name': 'write' };
const IN_TRACE = { inTraceOnly: true };

export type PostgresOptions = { url: string; poolSize?: number; applicationName?: string };

export class PostgresDb implements Db {
  readonly dialect: Dialect = 'postgres';
  readonly pool: pg.Pool;
  private readonly opts: PostgresOptions;
  private unflushedPool: pg.Pool | null = null;
  onGroupCommit?: (writes: number) => void;

  constructor(opts: PostgresOptions) {
    this.opts = opts;
    // `pipeline` is pg's own option (8.23), not yet in @types/pg.
    const config: pg.PoolConfig & { pipeline: boolean } = {
      connectionString: opts.url,
      max: opts.poolSize ?? 8,
      application_name: opts.applicationName ?? 'readybell',
      // Statements go out without waiting for the one before (pg's pipeline mode): a transaction's
      // BEGIN travels with its first statement and its COMMIT with the writes before it (PgTx).
      pipeline: true,
    };
    this.pool = new pg.Pool(config);
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
  }

  /**
   * Runs one statement as its own transaction whose COMMIT does not wait for the WAL flush
   * (synchronous_commit=off, on two connections of their own). Only for writes that nothing
   * acknowledged depends on until a later ordinary commit, which flushes all earlier WAL with
   * its own: a crash before that loses them together with everything that used them (see
   * create-statements.ts, the display-number counters).
   *
   * These connections also never plan a sequential scan: the one statement they run (the
   * numbering of creates) finds every row it reads by its index, and a prepared statement's plan
   * made while a table was small would otherwise keep scanning it as it grows (plans are made
   * again only when the table is analysed: measured with autovacuum off, every idempotency key
   * read by each batch once the plan chose a scan).
   */
  async queryUnflushed<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    if (this.unflushedPool === null) {
      this.unflushedPool = new pg.Pool({
        connectionString: this.opts.url,
        max: 2,
        application_name: this.opts.applicationName ?? 'readybell',
        options: '-c synchronous_commit=off -c enable_seqscan=off',
      });
      this.unflushedPool.on('error', () => {});
    }
    return (await this.unflushedPool.query(queryConfig(sql, params))).rows as T[];
  }

  async query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return (await this.pool.query(queryConfig(sql, params))).rows as T[];
  }
  async run(sql: string, params?: readonly unknown[]): Promise<number> {
    return (await this.pool.query(queryConfig(sql, params))).rowCount ?? 0;
  }

  /** One transaction, in a span of its own: its statements (pg's spans) are its children. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return inSpan('store.write', WRITE_SPAN, () => this.transaction(fn), IN_TRACE);
  }

  private async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx = new PgTx(client);
    let result: T;
    try {
      tx.begin();
      result = await fn(tx);
    } catch (err) {
      const cause = await tx.settle(err);
      await client.query('ROLLBACK').then(
        () => client.release(),
        (lost: Error) => client.release(lost),
      );
      throw cause;
    }
    // The COMMIT follows the writes still in flight in the same round trip. If one of them
    // failed, PostgreSQL has aborted the transaction and answers the COMMIT with a ROLLBACK.
    const commit = client.query('COMMIT').then(
      (r) => r.command,
      (err: Error) => err,
    );
    tx.flush();
    const failed = await tx.settle();
    const outcome = await commit;
    if (outcome instanceof Error) {
      client.release(outcome);
      throw failed ?? outcome;
    }
    client.release();
    if (failed !== null) throw failed;
    if (outcome !== 'COMMIT') throw new Error(`COMMIT answered ${outcome}`);
    runAfterCommitHooks(tx.hooks);
    return result;
  }

  async migrate(): Promise<string[]> {
    const client = await this.pool.connect();
    const applied: string[] = [];
    try {
      // Several nodes may start at once: the advisory lock lets one apply, the others then see
      // every step already recorded.
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await client.query(MIGRATIONS_TABLE_SQL);
      const done = new Set(
        (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)),
      );
      for (const m of loadMigrations('postgres')) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            m.version,
            m.name,
            Date.now(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
        applied.push(m.name);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
    return applied;
  }

  dataVersion(): number | null {
    return null;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.unflushedPool?.end()]);
  }
}
