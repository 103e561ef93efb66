// PostgreSQL through `pg`: a pool sized to the machine (about 8 on 2 cores; more adds latency, not
// throughput), BIGINT returned as numbers (our BIGINTs are millisecond times and counters, far
// below 2^53), and migrations serialised across nodes by an advisory lock.
//
// Nothing here depends on a connection keeping its server session between transactions, so a
// pooler in transaction mode (PgBouncer's `pool_mode = transaction`) may sit in between: settings
// are made with SET LOCAL inside the transaction they are for, locks are transaction locks, and
// named statements are used only where they are found to survive (decision 0057).
import pg from 'pg';
import { probeStatementNames } from './pooler-probe.ts';
import { runAfterCommitHooks } from '../db.ts';
import { named, PgTx, type Statements, unnamed } from './pg-tx.ts';
import type { Db, Dialect, Row, StoreHistory, Tx } from '../../core/db.ts';
import { ServerWatch } from './server-watch.ts';
import type { CreateOutcome, CreateRequest } from '../../core/ticket-create.ts';
import { PostgresCreates } from './create-batched.ts';
import { SharedWrites } from './shared-writes.ts';
import { loadMigrations, MIGRATIONS_TABLE_SQL } from '../migrations.ts';
import { inSpan } from '../../telemetry/tracing.ts';

pg.types.setTypeParser(20, (v) => Number(v)); // int8
pg.types.setTypeParser(1700, (v) => Number(v)); // numeric (aggregates)

const MIGRATION_LOCK = 0x7265_6479; // "redy"

/**
 * What makes the unflushed connections' statement skip the WAL flush and sequential scans (see
 * queryUnflushed): local to its transaction, so the server session it ran on, which a pooler
 * hands to other clients next, keeps its own settings.
 */
const UNFLUSHED_SETTINGS = "SELECT set_config('synchronous_commit', 'off', true), set_config('enable_seqscan', 'off', true)";

/**
 * Every client of the pool gets an error listener for its whole life. A client whose connection
 * dies while checked out (in a transaction, between statements) emits 'error'; without a listener
 * that is an uncaught exception and the node dies: seen when the primary crashed under load. Its
 * next statement then fails, and it is released with the error and replaced. The pool's own
 * 'error' is an idle client's death: the pool already replaces it.
 */
function watchClients(pool: pg.Pool): void {
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
}

const WRITE_SPAN = { 'db.system.name': 'postgresql', 'db.operation.name': 'write' };
const IN_TRACE = { inTraceOnly: true };

export type PostgresOptions = { url: string; poolSize?: number; applicationName?: string };

export class PostgresDb implements Db {
  readonly dialect: Dialect = 'postgres';
  readonly pool: pg.Pool;
  private readonly opts: PostgresOptions;
  private unflushedPool: pg.Pool | null = null;
  /** Named until migrate() finds a pooler that loses them between transactions. */
  private statement: Statements = named;
  onGroupCommit?: (writes: number) => void;
  /** Made at the first create: the batches creates share, and the node's copies of their branches. */
  private creates: PostgresCreates | null = null;
  private readonly watch = new ServerWatch();
  /** Made at the first shared write: the batches small writes share (shared-writes.ts). */
  private shared: SharedWrites | null = null;

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
    watchClients(this.pool);
  }

  /**
   * Runs one statement as its own transaction whose COMMIT does not wait for the WAL flush
   * (synchronous_commit=off, on two connections of their own). Only for writes that nothing
   * acknowledged depends on until a later ordinary commit, which flushes all earlier WAL with
   * its own: a crash before that loses them together with everything that used them (see
   * create-statements.ts, the display-number counters).
   *
   * That statement also never plans a sequential scan: the one statement it runs (the numbering
   * of creates) finds every row it reads by its index, and a prepared statement's plan made while
   * a table was small would otherwise keep scanning it as it grows (plans are made again only
   * when the table is analysed: measured with autovacuum off, every idempotency key read by each
   * batch once the plan chose a scan).
   *
   * Both settings are SET LOCAL (UNFLUSHED_SETTINGS) rather than the connection's startup
   * options: a pooler in transaction mode refuses startup options and hands the server session
   * to other clients after the COMMIT. BEGIN, the settings, the statement and the COMMIT leave in
   * one round trip (pipeline mode).
   */
  async queryUnflushed<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    if (this.unflushedPool === null) {
      const config: pg.PoolConfig & { pipeline: boolean } = {
        connectionString: this.opts.url,
        max: 2,
        application_name: this.opts.applicationName ?? 'readybell',
        pipeline: true,
      };
      this.unflushedPool = new pg.Pool(config);
      watchClients(this.unflushedPool);
    }
    const client = await this.unflushedPool.connect();
    const [begin, settings, result, commit] = await Promise.allSettled([
      client.query('BEGIN'),
      client.query(this.statement(UNFLUSHED_SETTINGS)),
      client.query(this.statement(sql, params)),
      client.query('COMMIT'),
    ]);
    const failed = [begin, settings, result, commit].find((r) => r.status === 'rejected');
    if (failed !== undefined) {
      // Rare (the statement is an upsert), so the connection goes rather than being cleaned.
      client.release(failed.reason as Error);
      throw failed.reason;
    }
    client.release();
    // Every one was fulfilled (a rejection has thrown above).
    const committed = (commit as PromiseFulfilledResult<pg.QueryResult>).value.command;
    if (committed !== 'COMMIT') throw new Error(`COMMIT answered ${committed}`);
    return (result as PromiseFulfilledResult<pg.QueryResult>).value.rows as T[];
  }

  async query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return (await this.watched(this.pool.query(this.statement(sql, params)))).rows as T[];
  }
  async run(sql: string, params?: readonly unknown[]): Promise<number> {
    return (await this.watched(this.pool.query(this.statement(sql, params)))).rowCount ?? 0;
  }

  /** In the two statements of create-statements.ts, shared with the creates that arrive meanwhile (decision 0010). */
  commitCreate(req: CreateRequest): Promise<CreateOutcome> {
    this.creates ??= new PostgresCreates(this);
    return this.watched(this.creates.commit(req));
  }

  /** In one transaction with the small writes that arrive together, one savepoint each (shared-writes.ts, decision 0079). */
  writeShared<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    this.shared ??= new SharedWrites({
      begin: async () => {
        const client = await this.pool.connect();
        const tx = new PgTx(client, this.statement);
        tx.begin();
        return { client, tx };
      },
      alone: (f) => this.write(f),
      onBatch: (n) => this.onGroupCommit?.(n),
    });
    return this.shared.write(fn);
  }

  /** One transaction, in a span of its own: its statements (pg's spans) are its children. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return inSpan('store.write', WRITE_SPAN, () => this.watched(this.transaction(fn)), IN_TRACE);
  }

  /**
   * Tells the watch how a piece of work ended: a failure for want of a server opens an outage, the
   * first success after one closes it and asks which server answers now (a failover changes it).
   */
  private watched<T>(work: Promise<T>): Promise<T> {
    return work.then(
      (value) => {
        if (this.watch.succeeded()) void this.checkServer().catch(() => {});
        return value;
      },
      (err: unknown) => {
        this.watch.failed(err);
        throw err;
      },
    );
  }

  /** Which server answers: its start time and whether it is a standby (both readable by any role). */
  private async checkServer(): Promise<void> {
    const { rows } = await this.pool.query<{ started: Date; standby: boolean }>(
      'SELECT pg_postmaster_start_time() AS started, pg_is_in_recovery() AS standby',
    );
    if (rows[0] !== undefined) this.watch.saw(rows[0].started.getTime(), rows[0].standby);
  }

  history(): StoreHistory {
    return this.watch.history();
  }

  private async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx = new PgTx(client, this.statement);
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
    const failed = await tx.settle(); // sends the COMMIT with what is held
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

  /**
   * Learns whether named statements survive between transactions (they do not behind a pooler in
   * transaction mode that does not carry them), then applies the missing migration steps.
   *
   * Several nodes may start at once: each step is a transaction that first takes a transaction
   * advisory lock, so one node applies it and the others then find it recorded. A session lock
   * would not do behind a pooler: its unlock may reach another server session than its lock.
   */
  async migrate(): Promise<string[]> {
    const names = await probeStatementNames(this.opts.url, this.opts.applicationName ?? 'readybell');
    this.statement = names === 'lost' ? unnamed : named;
    const applied: string[] = [];
    const steps = loadMigrations('postgres');
    const client = await this.pool.connect();
    let lost: Error | undefined;
    try {
      for (;;) {
        await client.query('BEGIN');
        try {
          await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
          await client.query(MIGRATIONS_TABLE_SQL);
          const done = new Set(
            (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)),
          );
          const next = steps.find((m) => !done.has(m.version));
          if (next !== undefined) {
            await client.query(next.sql);
            await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
              next.version,
              next.name,
              Date.now(),
            ]);
          }
          await client.query('COMMIT');
          if (next === undefined) break;
          applied.push(next.name);
        } catch (err) {
          await client.query('ROLLBACK').catch((e: Error) => {
            lost = e;
          });
          throw err;
        }
      }
    } finally {
      client.release(lost);
    }
    return applied;
  }

  /** How statements travel: by name, or unnamed because a pooler loses names (for tests and diagnostics). */
  statementNames(): 'named' | 'unnamed' {
    return this.statement === named ? 'named' : 'unnamed';
  }

  dataVersion(): number | null {
    return null;
  }

  async ping(): Promise<void> {
    await this.watched(this.checkServer());
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.unflushedPool?.end()]);
  }
}
