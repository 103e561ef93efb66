// The write path's transactions keep their after-commit work (the live update, the webhook jobs'
// hand-off, a ring's metric) and run it themselves once the store has committed: one hand-off by
// the write path when the commit returns, instead of the store calling each hook back up the
// layers. Work undone by a savepoint takes its hooks with it, as in the store's own list; a
// commit that fails, or finds its Idempotency-Key taken, runs none. Decision 0065.
import type { Db, Tx } from '../core/db.ts';
import { runAfterCommitHooks } from '../store/db.ts';
import { writeWithKey, type KeyRecord } from '../store/idempotency.ts';

type Hooks = Array<() => void>;

/** `tx`, with what is to run after its commit kept in `hooks` rather than given to the store. */
function keepingHooks(tx: Tx, hooks: Hooks): Tx {
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

/** writeWithKey (src/store/idempotency.ts), then the work's after-commit hooks once it has committed. */
export async function writeWithKeyThenHooks<T>(
  db: Db,
  work: (tx: Tx) => Promise<{ result: T; record: KeyRecord | null }>,
): Promise<T | { kind: 'key-taken' }> {
  const hooks: Hooks = [];
  const done = await writeWithKey(db, (tx) => work(keepingHooks(tx, hooks)));
  const taken = typeof done === 'object' && done !== null && 'kind' in done && done.kind === 'key-taken';
  if (!taken) runAfterCommitHooks(hooks);
  return done;
}

/** db.write, then the work's after-commit hooks once it has committed. */
export async function writeThenHooks<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const hooks: Hooks = [];
  const result = await db.write((tx) => fn(keepingHooks(tx, hooks)));
  runAfterCommitHooks(hooks);
  return result;
}
