// Small writes that arrive together share one transaction and one COMMIT on PostgreSQL, as the
// creates do (decision 0010), each in a savepoint of its own (decision 0079). A ready's
// transaction is one statement waited for (the ticket's conditional UPDATE … RETURNING) and a few
// sent without waiting, then its COMMIT: alone, that COMMIT's WAL flush and round trip are most of
// what PostgreSQL spends on it (decision 0054). Here the batch pays one BEGIN, one COMMIT and one
// flush; each write's SAVEPOINT travels with its first statement and its other statements with
// the next write's, so a write costs the round trip of the statement it waits for.
//
// - One batch at a time: writes that arrive while a batch runs wait and go together in the next
//   (at most MAX_BATCH). Under light load a write finds the slot free and runs at once, alone, in
//   a transaction of its own.
// - A write that throws is rolled back to its savepoint and answers its own error; its
//   neighbours go on. A statement sent without waiting that fails aborts the whole transaction
//   (PostgreSQL knows no savepoint after it), which the next write's SAVEPOINT finds: the batch is
//   then rolled back and every write in it not yet answered is tried again alone, so each answers
//   its own outcome, as a failed create batch does.
// - Every write resolves only once the batch's COMMIT is durable, and its after-commit work runs
//   then, in the order the writes ran. A lost connection leaves the outcome unknown: every write
//   of the batch fails with it (a 500, not stored under a key), never tried again blindly.
import type pg from 'pg';
import type { Tx } from '../../core/db.ts';
import { keepingHooks, runAfterCommitHooks } from '../db.ts';

/** Most writes in one batch: enough to share a COMMIT widely, few enough to hold row locks briefly. */
const MAX_BATCH = 64;

/** The PostgreSQL transaction the batch runs in (PgTx, pg-tx.ts). */
export interface BatchTx extends Tx {
  /** Waits for what was sent without waiting; answers the first failure among it, or `err`. */
  settle(err?: unknown): Promise<unknown>;
}

type Item = { fn: (tx: Tx) => Promise<unknown>; resolve: (v: unknown) => void; reject: (err: unknown) => void };

export type SharedWritesDeps = {
  /** A connection with a transaction begun on it (BEGIN sent with its first statement). */
  begin(): Promise<{ client: pg.PoolClient; tx: BatchTx }>;
  /** A write in a transaction of its own. */
  alone<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Told how many writes a shared commit carried. */
  onBatch(writes: number): void;
};

export class SharedWrites {
  private readonly deps: SharedWritesDeps;
  private readonly queue: Item[] = [];
  private running = false;

  constructor(deps: SharedWritesDeps) {
    this.deps = deps;
  }

  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        if (batch.length === 1) await this.alone(batch);
        else await this.together(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private alone(items: Item[]): Promise<void> {
    return Promise.all(items.map((item) => this.deps.alone(item.fn).then(item.resolve, item.reject))).then(() => {});
  }

  private async together(batch: Item[]): Promise<void> {
    let session: { client: pg.PoolClient; tx: BatchTx };
    try {
      session = await this.deps.begin();
    } catch (err) {
      for (const item of batch) item.reject(err);
      return;
    }
    const { client, tx } = session;
    const done: Array<{ item: Item; value: unknown; hooks: Array<() => void> }> = [];
    let next = 0;
    let doomed = false;
    for (; next < batch.length && !doomed; next++) {
      const item = batch[next]!;
      const name = `w${next}`;
      const hooks: Array<() => void> = [];
      await tx.later(`SAVEPOINT ${name}`);
      try {
        done.push({ item, value: await item.fn(keepingHooks(tx, hooks)), hooks });
      } catch (err) {
        const cause = await tx.settle(err);
        // Its own savepoint exists unless an earlier write's statement aborted the transaction
        // before it: then nothing of the batch can commit, and this write is tried again alone.
        const undone = await client.query(`ROLLBACK TO SAVEPOINT ${name}`).then(
          () => true,
          () => false,
        );
        if (undone) item.reject(cause);
        else {
          doomed = true;
          next--; // tried again below, with the rest
        }
      }
    }
    const rest = batch.slice(next);
    const outcome = doomed ? 'ROLLBACK' : await commit(client, tx);
    if (outcome === 'COMMIT') {
      client.release();
      this.deps.onBatch(done.length);
      for (const { item, value, hooks } of done) {
        item.resolve(value);
        runAfterCommitHooks(hooks);
      }
      if (rest.length > 0) await this.alone(rest);
      return;
    }
    if (outcome instanceof Error) {
      // The connection was lost: whether the COMMIT happened is unknown.
      client.release(outcome);
      for (const { item } of done) item.reject(outcome);
      for (const item of rest) item.reject(outcome);
      return;
    }
    // Rolled back by PostgreSQL (a statement sent without waiting failed): each write alone.
    await client.query('ROLLBACK').then(
      () => client.release(),
      (lost: Error) => client.release(lost),
    );
    await this.alone([...done.map((d) => d.item), ...rest]);
  }
}

/** COMMIT, sent with what is still in flight; answers 'COMMIT', what PostgreSQL answered instead, or the connection's error. */
async function commit(client: pg.PoolClient, tx: BatchTx): Promise<string | Error> {
  const sent = client.query('COMMIT').then(
    (r) => r.command,
    (err: Error) => err,
  );
  const failed = await tx.settle();
  const outcome = await sent;
  if (outcome instanceof Error) return typeof (outcome as { code?: unknown }).code === 'string' ? 'ROLLBACK' : outcome;
  return failed === null ? outcome : 'ROLLBACK';
}
