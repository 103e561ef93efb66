// Rows described as data (RowWrite, src/core/events.ts), inserted in a transaction. A create
// describes all of its writes this way, so that the store decides how they travel: one INSERT
// each here, or a whole batch of creates' rows in one statement (store/postgres/create-statements.ts).
import type { RowWrite } from '../core/events.ts';
import type { Dialect, Tx } from '../core/db.ts';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** A column or table name of ours, checked: rows are written by our code, but SQL text is no place to trust that. */
export function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a column or table name: ${JSON.stringify(name)}`);
  return name;
}

/**
 * The ON CONFLICT clause of a merged row (empty for a plain one), as both engines spell it.
 * `excluded` is the row being inserted.
 */
export function mergeClause(row: RowWrite, dialect: Dialect): string {
  const { merge } = row;
  if (merge === undefined) return '';
  const table = identifier(row.table);
  for (const column of Object.keys(row.values)) {
    if (!merge.key.includes(column) && merge.columns[column] === undefined)
      throw new Error(`${table}.${column} is neither a key nor merged`);
  }
  const larger = dialect === 'postgres' ? 'GREATEST' : 'max';
  const sets = Object.entries(merge.columns).map(([c, how]) => {
    const col = identifier(c);
    return how === 'add' ? `${col} = ${table}.${col} + excluded.${col}` : `${col} = ${larger}(${table}.${col}, excluded.${col})`;
  });
  return ` ON CONFLICT (${merge.key.map(identifier).join(', ')}) DO UPDATE SET ${sets.join(', ')}`;
}

/** Rows of one shape (table, columns, merge) share their SQL: the key for caching it. */
export function shapeOf(row: RowWrite): string {
  const merge =
    row.merge === undefined
      ? ''
      : ` merge(${row.merge.key.join(',')};${Object.entries(row.merge.columns)
          .map(([c, h]) => `${c}:${h}`)
          .join(',')})`;
  return `${row.table}(${Object.keys(row.values).join(',')})${merge}`;
}

const insertSql = new Map<string, string>();

function sqlFor(row: RowWrite, dialect: Dialect): string {
  const shape = `${dialect} ${shapeOf(row)}`;
  let sql = insertSql.get(shape);
  if (sql === undefined) {
    const columns = Object.keys(row.values);
    sql =
      `INSERT INTO ${identifier(row.table)} (${columns.map(identifier).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})` +
      mergeClause(row, dialect);
    insertSql.set(shape, sql);
  }
  return sql;
}

/**
 * Inserts `row` as part of `tx`, without waiting for it on PostgreSQL (Tx.later): its failure
 * fails the transaction, which is all a caller could do about it.
 */
export function insertRow(tx: Tx, row: RowWrite): Promise<void> {
  return tx.later(sqlFor(row, tx.dialect), Object.values(row.values));
}
