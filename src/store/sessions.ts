// Staff page sessions. Looked up by the SHA-256 of the cookie's token; every read joins the user
// and the account, so a removed user, a changed role or a changed plan take effect on the next
// request without any cache to invalidate.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { Plan } from '../core/tenancy.ts';
import type { Role } from '../core/tenancy.ts';

export type SessionRecord = {
  id: string;
  tokenHash: string;
  userId: string;
  accountId: string;
  branchId: string;
  passwordStamp: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  revokedAt: number | null;
};

export type SessionView = SessionRecord & {
  user: { id: string; email: string; role: Role; removedAt: number | null; passwordHash: string };
  /** deletionRequestedAt: set while the account is being deleted (decision 0083). */
  account: { id: string; name: string; plan: Plan; deletionRequestedAt: number | null };
};

type Row = {
  id: string;
  token_hash: string;
  user_id: string;
  account_id: string;
  branch_id: string;
  password_stamp: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  revoked_at: number | null;
  email: string;
  role: Role;
  removed_at: number | null;
  password_hash: string;
  account_name: string;
  plan: Plan;
  deletion_requested_at: number | null;
};

const n = (v: number | null): number | null => (v === null ? null : Number(v));

export async function insertSession(tx: Tx, s: SessionRecord): Promise<void> {
  await tx.run(
    `INSERT INTO sessions (id, token_hash, user_id, account_id, branch_id, password_stamp, created_at, last_seen_at, expires_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [s.id, s.tokenHash, s.userId, s.accountId, s.branchId, s.passwordStamp, s.createdAt, s.lastSeenAt, s.expiresAt, s.revokedAt],
  );
}

export async function findSessionByTokenHash(q: Queryable, tokenHash: string): Promise<SessionView | undefined> {
  const r = await one<Row>(
    q,
    `SELECT s.id, s.token_hash, s.user_id, s.account_id, s.branch_id, s.password_stamp, s.created_at, s.last_seen_at,
            s.expires_at, s.revoked_at, u.email, u.role, u.removed_at, u.password_hash, a.name AS account_name, a.plan, a.deletion_requested_at
       FROM sessions s JOIN users u ON u.id = s.user_id JOIN accounts a ON a.id = s.account_id
      WHERE s.token_hash = $1`,
    [tokenHash],
  );
  if (r === undefined) return undefined;
  return {
    id: r.id,
    tokenHash: r.token_hash,
    userId: r.user_id,
    accountId: r.account_id,
    branchId: r.branch_id,
    passwordStamp: r.password_stamp,
    createdAt: Number(r.created_at),
    lastSeenAt: Number(r.last_seen_at),
    expiresAt: Number(r.expires_at),
    revokedAt: n(r.revoked_at),
    user: { id: r.user_id, email: r.email, role: r.role, removedAt: n(r.removed_at), passwordHash: r.password_hash },
    account: { id: r.account_id, name: r.account_name, plan: r.plan, deletionRequestedAt: n(r.deletion_requested_at) },
  };
}

export async function touchSession(tx: Tx, id: string, now: number): Promise<void> {
  await tx.run('UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2', [id, now]);
}

export async function revokeSession(tx: Tx, id: string, now: number): Promise<boolean> {
  return (await tx.run('UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, now])) === 1;
}

export async function revokeUserSessions(tx: Tx, userId: string, now: number): Promise<number> {
  return tx.run('UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL', [userId, now]);
}

/** The same password under a new hash: sessions stamped with the old hash stay valid. */
export async function restampSessions(tx: Tx, userId: string, from: string, to: string): Promise<void> {
  await tx.run('UPDATE sessions SET password_stamp = $3 WHERE user_id = $1 AND password_stamp = $2 AND revoked_at IS NULL', [
    userId,
    from,
    to,
  ]);
}

export async function setSessionBranch(tx: Tx, id: string, branchId: string): Promise<void> {
  await tx.run('UPDATE sessions SET branch_id = $2 WHERE id = $1', [id, branchId]);
}
