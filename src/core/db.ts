// The narrow database port every store module is written against. SQL is written once, in the
// common subset of SQLite and PostgreSQL ($1-style parameters, RETURNING, ON CONFLICT), and each
// engine supplies an executor (src/store/sqlite, src/store/postgres). pg-boss does the same with its
// `executeSql` port; it keeps one implementation of each store instead of two that drift apart.
// The helpers written against it (one, toJson, …) stay in src/store/db.ts. One write is the
// engine's own beyond SQL: a create's commit (commitCreate), batched on PostgreSQL.
import type { CreateOutcome, CreateRequest } from './ticket-create.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Row = Record<string, unknown>;

export interface Queryable {
  readonly dialect: Dialect;
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Rows changed by an INSERT/UPDATE/DELETE without RETURNING. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

export interface Tx extends Queryable {
  /**
   * A write whose outcome the transaction needs only at its commit. On PostgreSQL it is not
   * waited for: it leaves in one socket write with whatever follows (the next statement waited
   * for, or the COMMIT at best; at the latest when the event loop's turn ends), and its failure
   * fails the commit (or the enclosing savepoint). Elsewhere it is `run`.
   */
  later(sql: string, params?: readonly unknown[]): Promise<void>;
  /** Runs `fn` so that its writes are undone on a throw without aborting the enclosing transaction. */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  /** Called once the transaction holding this work has committed (publish to the bus, wake a worker). */
  afterCommit(fn: () => void): void;
  /** `FOR UPDATE` on PostgreSQL; nothing on SQLite, whose writer already holds the only write lock. */
  readonly forUpdate: string;
}

export interface Db extends Queryable {
  /**
   * Runs `fn` in a write transaction and resolves once it is durably committed. On the embedded
   * store concurrent calls share one transaction and one fsync (group commit); each call runs in
   * its own savepoint, so one failing call does not fail the others.
   */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * A small write (a ticket's transition: a ready, a collect) that may share one transaction and
   * one commit with the ones that arrive together, each in a savepoint of its own, so one that
   * fails does not fail the others and each resolves once the shared commit is durable. The
   * embedded store's `write` already is that (group commit); on PostgreSQL they go as one
   * transaction, one COMMIT and one WAL flush for the batch (decision 0079).
   */
  writeShared<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Commits a create the engine's way, the key's record with it (the contract:
   * core/ticket-create.ts): a transaction of its own sharing the group commit on the embedded
   * store, statements shared with the creates that arrive together on PostgreSQL.
   */
  commitCreate(req: CreateRequest): Promise<CreateOutcome>;
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  /**
   * A number that changes whenever another process (the CLI, a worker) commits to the store, read
   * without a round trip; null where that is not cheap to know (PostgreSQL).
   */
  dataVersion(): number | null;
  /** Told how many writes each group commit carried (metrics; set by the composition root). */
  onGroupCommit?: (writes: number) => void;
  /** What this node has seen of a store's server lately (PostgreSQL), for /readyz; none for the embedded store. */
  history?(): StoreHistory;
  close(): Promise<void>;
}

/**
 * A store server's recent past as one node saw it (decision 0089): the latest outages (times in
 * ms; `to` null while it lasts; `error` a class of failure, never a message) and the server that
 * answers: its start time, role, and when this node found a different server behind the address.
 */
export type StoreHistory = {
  outages: Array<{ from: number; to: number | null; error: string }>;
  server: { startedAt: number; role: 'primary' | 'standby'; changedAt: number | null } | null;
};
