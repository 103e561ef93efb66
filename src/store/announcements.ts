// Announcements: short notes for the customer pages and boards of one branch and mode.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { Mode } from '../core/tenancy.ts';

export type Announcement = {
  id: string;
  branchId: string;
  mode: Mode;
  message: string;
  createdAt: number;
  expiresAt: number;
  deletedAt: number | null;
};

type Row = {
  id: string;
  branch_id: string;
  mode: Mode;
  message: string;
  created_at: number;
  expires_at: number;
  deleted_at: number | null;
};
const COLUMNS = 'id, branch_id, mode, message, created_at, expires_at, deleted_at';
const toAnnouncement = (r: Row): Announcement => ({
  id: r.id,
  branchId: r.branch_id,
  mode: r.mode,
  message: r.message,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  deletedAt: r.deleted_at === null ? null : Number(r.deleted_at),
});

/** At most this many are shown at once: a board or a phone has room for a few lines, not a feed. */
export const MAX_ACTIVE_SHOWN = 3;

export async function insertAnnouncement(tx: Tx, a: Announcement): Promise<void> {
  await tx.run(`INSERT INTO announcements (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    a.id,
    a.branchId,
    a.mode,
    a.message,
    a.createdAt,
    a.expiresAt,
    a.deletedAt,
  ]);
}

/** Newest first; only those neither deleted nor expired at `now`. */
export async function listActiveAnnouncements(
  q: Queryable,
  branchId: string,
  mode: Mode,
  now: number,
  limit = MAX_ACTIVE_SHOWN,
): Promise<Announcement[]> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM announcements WHERE branch_id = $1 AND mode = $2 AND deleted_at IS NULL AND expires_at > $3 ORDER BY id DESC LIMIT $4`,
    [branchId, mode, now, limit],
  );
  return rows.map(toAnnouncement);
}

export async function getAnnouncement(q: Queryable, branchId: string, mode: Mode, id: string): Promise<Announcement | undefined> {
  const r = await one<Row>(q, `SELECT ${COLUMNS} FROM announcements WHERE id = $1 AND branch_id = $2 AND mode = $3`, [id, branchId, mode]);
  return r && toAnnouncement(r);
}

export async function markAnnouncementDeleted(tx: Tx, branchId: string, mode: Mode, id: string, now: number): Promise<boolean> {
  return (
    (await tx.run('UPDATE announcements SET deleted_at = $4 WHERE id = $1 AND branch_id = $2 AND mode = $3 AND deleted_at IS NULL', [
      id,
      branchId,
      mode,
      now,
    ])) === 1
  );
}
