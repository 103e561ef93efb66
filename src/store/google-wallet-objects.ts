// The Google Wallet pass object of a ticket (migration 0014): recorded at the first save link,
// read on each ring and close, erased once the closed ticket's pass says so (or Google has no such
// object). Every query is filtered by branch and mode as well as ticket.
import type { Db, Queryable } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';
import { one } from './db.ts';

export type GoogleWalletObject = {
  ticketId: string;
  branchId: string;
  mode: Mode;
  objectId: string;
  createdAt: number;
  /** When Google accepted the object's insert (or said it has it); null: not yet. */
  insertedAt: number | null;
};
export type TicketRef = { id: string; branchId: string; mode: Mode };

/** Google's documented limit: at most this many notifying messages per pass in NOTIFY_WINDOW_MS. */
export const NOTIFY_LIMIT = 3;
export const NOTIFY_WINDOW_MS = 24 * 60 * 60 * 1000;

type Row = { ticket_id: string; branch_id: string; mode: Mode; object_id: string; created_at: number; inserted_at: number | null };
const toRecord = (r: Row): GoogleWalletObject => ({
  ticketId: r.ticket_id,
  branchId: r.branch_id,
  mode: r.mode,
  objectId: r.object_id,
  createdAt: Number(r.created_at),
  insertedAt: r.inserted_at === null ? null : Number(r.inserted_at),
});
const COLUMNS = 'ticket_id, branch_id, mode, object_id, created_at, inserted_at';
const INSERT_COLUMNS = 'ticket_id, branch_id, mode, object_id, created_at';

export async function getGoogleWalletObject(q: Queryable, t: TicketRef): Promise<GoogleWalletObject | undefined> {
  const r = await one<Row>(q, `SELECT ${COLUMNS} FROM google_wallet_objects WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3`, [
    t.id,
    t.branchId,
    t.mode,
  ]);
  return r && toRecord(r);
}

/**
 * The ticket's object: the one recorded, or `proposed` recorded now. Two save links asked at once
 * agree on one object (the second insert does nothing and reads the first's).
 */
export async function recordGoogleWalletObject(db: Db, proposed: Omit<GoogleWalletObject, 'insertedAt'>): Promise<GoogleWalletObject> {
  return db.write(async (tx) => {
    await tx.run(`INSERT INTO google_wallet_objects (${INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (ticket_id) DO NOTHING`, [
      proposed.ticketId,
      proposed.branchId,
      proposed.mode,
      proposed.objectId,
      proposed.createdAt,
    ]);
    return (await getGoogleWalletObject(tx, { id: proposed.ticketId, branchId: proposed.branchId, mode: proposed.mode }))!;
  });
}

/** Google has the object now: later save links do not insert it again. */
export async function markGoogleWalletObjectInserted(db: Db, objectId: string, now: number): Promise<void> {
  await db.write((tx) =>
    tx.run('UPDATE google_wallet_objects SET inserted_at = $2 WHERE object_id = $1 AND inserted_at IS NULL', [objectId, now]),
  );
}

/**
 * Takes one of the object's notifications: true when fewer than NOTIFY_LIMIT were taken in the
 * window before `now` (the oldest of the last three is older than the window, or missing). One
 * conditional update of the object's row, so two rings at once cannot both take the third.
 */
export async function takeGoogleWalletNotification(db: Db, objectId: string, now: number): Promise<boolean> {
  const n = await db.write((tx) =>
    tx.run(
      `UPDATE google_wallet_objects SET notified_1 = notified_2, notified_2 = notified_3, notified_3 = $2
       WHERE object_id = $1 AND (notified_1 IS NULL OR notified_1 <= $3)`,
      [objectId, now, now - NOTIFY_WINDOW_MS],
    ),
  );
  return n === 1;
}

/** How many notifications the object had in the window before `now` (the outcome's detail says it). */
export async function countGoogleWalletNotifications(q: Queryable, objectId: string, now: number): Promise<number> {
  const r = await one<{ notified_1: number | null; notified_2: number | null; notified_3: number | null }>(
    q,
    'SELECT notified_1, notified_2, notified_3 FROM google_wallet_objects WHERE object_id = $1',
    [objectId],
  );
  if (r === undefined) return 0;
  return [r.notified_1, r.notified_2, r.notified_3].filter((t) => t !== null && Number(t) > now - NOTIFY_WINDOW_MS).length;
}

/** Forgets the object: the ticket closed and its pass says so, or Google no longer has it. */
export async function deleteGoogleWalletObject(db: Db, objectId: string): Promise<void> {
  await db.write((tx) => tx.run('DELETE FROM google_wallet_objects WHERE object_id = $1', [objectId]));
}
