// A Db that records every statement it is asked to run, in order, tagged with the transaction it
// ran in (0 = outside any). For tests and scripts that count what a request costs the store.
import type { Db, Queryable, Row, Tx } from '../../src/core/db.ts';

/** `later`: sent by Tx.later, so it costs no round trip of its own on PostgreSQL. */
export type Statement = { tx: number; sql: string; later?: true; params?: readonly unknown[] };

export type CountingDb = Db & { log: Statement[] };

const oneLine = (sql: string): string => sql.replace(/\s+/g, ' ').trim();

function recorder(inner: Queryable, log: Statement[], tx: number): Pick<Queryable, 'query' | 'run'> {
  return {
    query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
      log.push({ tx, sql: oneLine(sql), params });
      return inner.query<T>(sql, params);
    },
    run(sql: string, params?: readonly unknown[]): Promise<number> {
      log.push({ tx, sql: oneLine(sql), params });
      return inner.run(sql, params);
    },
  };
}

export function countingDb(inner: Db): CountingDb {
  const log: Statement[] = [];
  let txSeq = 0;
  const wrapTx = (tx: Tx, n: number): Tx => ({
    dialect: tx.dialect,
    forUpdate: tx.forUpdate,
    ...recorder(tx, log, n),
    savepoint: (fn) => {
      log.push({ tx: n, sql: 'SAVEPOINT' });
      return tx.savepoint(fn);
    },
    later: (sql, params) => {
      log.push({ tx: n, sql: oneLine(sql), later: true, params });
      return tx.later(sql, params);
    },
    afterCommit: (fn) => tx.afterCommit(fn),
  });
  return {
    dialect: inner.dialect,
    log,
    ...recorder(inner, log, 0),
    write: (fn) => {
      const n = ++txSeq;
      return inner.write((tx) => fn(wrapTx(tx, n)));
    },
    // The engine's own commit, unrecorded: its statements are the store's business (a batch on PostgreSQL).
    commitCreate: (req) => inner.commitCreate(req),
    writeShared: (fn) => {
      const n = ++txSeq;
      return inner.writeShared((tx) => fn(wrapTx(tx, n)));
    },
    migrate: () => inner.migrate(),
    ping: () => inner.ping(),
    dataVersion: () => inner.dataVersion(),
    close: () => inner.close(),
  };
}
