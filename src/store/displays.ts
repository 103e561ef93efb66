// Display boards. Every query is filtered by branch and mode, except the lookup by token, which is
// how a board page finds its branch (the token is the credential).
import type { Queryable, Tx } from '../core/db.ts';
import { fromJson, one, toJson } from './db.ts';
import type { Mode } from '../core/tenancy.ts';

export type Display = {
  id: string;
  branchId: string;
  mode: Mode;
  name: string;
  /** empty: every queue of the branch */
  queues: string[];
  voice: boolean;
  token: string;
  createdAt: number;
  deletedAt: number | null;
};

type Row = {
  id: string;
  branch_id: string;
  mode: Mode;
  name: string;
  queues: string;
  voice: number;
  token: string;
  created_at: number;
  deleted_at: number | null;
};
const COLUMNS = 'id, branch_id, mode, name, queues, voice, token, created_at, deleted_at';

const toDisplay = (r: Row): Display => ({
  id: r.id,
  branchId: r.branch_id,
  mode: r.mode,
  name: r.name,
  queues: fromJson<string[]>(r.queues, []),
  voice: Number(r.voice) === 1,
  token: r.token,
  createdAt: Number(r.created_at),
  deletedAt: r.deleted_at === null ? null : Number(r.deleted_at),
});

export async function insertDisplay(tx: Tx, d: Display): Promise<void> {
  await tx.run(`INSERT INTO displays (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
    d.id,
    d.branchId,
    d.mode,
    d.name,
    toJson(d.queues),
    d.voice ? 1 : 0,
    d.token,
    d.createdAt,
    d.deletedAt,
  ]);
}

export async function listDisplays(q: Queryable, branchId: string, mode: Mode): Promise<Display[]> {
  const rows = await q.query<Row>(`SELECT ${COLUMNS} FROM displays WHERE branch_id = $1 AND mode = $2 AND deleted_at IS NULL ORDER BY id`, [
    branchId,
    mode,
  ]);
  return rows.map(toDisplay);
}

export async function getDisplay(q: Queryable, branchId: string, mode: Mode, id: string): Promise<Display | undefined> {
  const r = await one<Row>(q, `SELECT ${COLUMNS} FROM displays WHERE id = $1 AND branch_id = $2 AND mode = $3 AND deleted_at IS NULL`, [
    id,
    branchId,
    mode,
  ]);
  return r && toDisplay(r);
}

/** Deleted boards are returned too, so their page can say so. */
export async function getDisplayByToken(q: Queryable, token: string): Promise<Display | undefined> {
  const r = await one<Row>(q, `SELECT ${COLUMNS} FROM displays WHERE token = $1`, [token]);
  return r && toDisplay(r);
}

export async function markDisplayDeleted(tx: Tx, branchId: string, mode: Mode, id: string, now: number): Promise<boolean> {
  return (
    (await tx.run('UPDATE displays SET deleted_at = $4 WHERE id = $1 AND branch_id = $2 AND mode = $3 AND deleted_at IS NULL', [
      id,
      branchId,
      mode,
      now,
    ])) === 1
  );
}

export async function countDisplays(q: Queryable, branchId: string, mode: Mode): Promise<number> {
  const r = await one<{ n: number }>(q, 'SELECT COUNT(*) AS n FROM displays WHERE branch_id = $1 AND mode = $2 AND deleted_at IS NULL', [
    branchId,
    mode,
  ]);
  return Number(r?.n ?? 0);
}
