// Helpers for the database port (src/core/db.ts): after-commit hooks, first-row reads, JSON
// columns. SQL is written once, in the common subset of SQLite and PostgreSQL; each engine supplies
// an executor.
import type { Queryable, Row, Tx } from '../core/db.ts';

/** Runs a committed write's after-commit hooks; one that throws must never fail or undo the write. */
export function runAfterCommitHooks(hooks: ReadonlyArray<() => void>): void {
  for (const hook of hooks) {
    try {
      hook();
    } catch {
      // the write is committed whatever a hook does
    }
  }
}

/**
 * `tx`, with what is to run after its commit kept in `hooks` rather than given to the store, and
 * dropped with a savepoint that fails: one write's own after-commit work, run by whoever commits it.
 */
export function keepingHooks(tx: Tx, hooks: Array<() => void>): Tx {
  return {
    dialect: tx.dialect,
    forUpdate: tx.forUpdate,
    query: (sql, params) => tx.query(sql, params),
    run: (sql, params) => tx.run(sql, params),
    later: (sql, params) => tx.later(sql, params),
    async savepoint(fn) {
      const mark = hooks.length;
      try {
        return await tx.savepoint(fn);
      } catch (err) {
        hooks.length = mark;
        throw err;
      }
    },
    afterCommit: (fn) => void hooks.push(fn),
  };
}

export async function one<T = Row>(q: Queryable, sql: string, params?: readonly unknown[]): Promise<T | undefined> {
  const rows = await q.query<T>(sql, params);
  return rows[0];
}

/** JSON columns are TEXT on both engines; these keep the parse/serialise in one place. */
export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function fromJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string' || value === '') return fallback;
  return JSON.parse(value) as T;
}
