// One PostgreSQL transaction on one pooled connection (PgTx), and how its statements are sent:
// named (parsed once per server session) or unnamed, where a pooler loses names (decision 0057).
// PostgresDb (postgres-db.ts) opens, retries and ends these; what runs inside them is here.
import type pg from 'pg';
import type { Writable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { Dialect, Row, Tx } from '../../core/db.ts';

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

/** How a statement is sent: by name (parsed once per session) or unnamed (parsed every time). */
export type Statements = (sql: string, params?: readonly unknown[]) => pg.QueryConfig;

export const named: Statements = (sql, params = []) => ({ name: statementName(sql), text: sql, values: params as unknown[] });
export const unnamed: Statements = (sql, params = []) => ({ text: sql, values: params as unknown[] });

export class PgTx implements Tx {
  readonly dialect: Dialect = 'postgres';
  readonly forUpdate = 'FOR UPDATE';
  readonly hooks: Array<() => void> = [];
  private readonly client: pg.PoolClient;
  private readonly statement: Statements;
  private seq = 0;
  /** Statements sent without waiting (BEGIN, `later`), and the first of them that failed. */
  private inFlight: Array<Promise<void>> = [];
  private failure: Error | null = null;
  /** The connection's socket, corked while statements sent without waiting are held for the next write. */
  private readonly socket: Writable | null;
  private held = false;

  constructor(client: pg.PoolClient, statement: Statements) {
    this.client = client;
    this.statement = statement;
    const stream = (client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
    this.socket = stream !== undefined && typeof stream.cork === 'function' ? stream : null;
  }
  async query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return (await this.waited(sql, params)).rows as T[];
  }
  async run(sql: string, params?: readonly unknown[]): Promise<number> {
    return (await this.waited(sql, params)).rowCount ?? 0;
  }
  /** A statement the caller waits for: it leaves now, with whatever `later` held. */
  private waited(sql: string, params?: readonly unknown[]): Promise<pg.QueryResult> {
    const sent = this.client.query(this.statement(sql, params));
    this.flush();
    return sent;
  }
  later(sql: string, params?: readonly unknown[]): Promise<void> {
    this.hold();
    this.send(this.client.query(this.statement(sql, params)));
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
