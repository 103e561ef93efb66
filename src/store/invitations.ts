// Invitations of staff users by email (decision 0082). Each row is one invitation; a resend gives
// it a new token (the old link stops) and a new expiry.
import type { Queryable, Tx } from '../core/db.ts';
import type { Role } from '../core/tenancy.ts';
import { one } from './db.ts';

export type InvitationRecord = {
  id: string;
  accountId: string;
  email: string;
  role: Role;
  tokenHash: string;
  language: string;
  invitedBy: string | null;
  createdAt: number;
  sentAt: number;
  expiresAt: number;
  acceptedAt: number | null;
  revokedAt: number | null;
  userId: string | null;
};

type Row = {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  token_hash: string;
  language: string;
  invited_by: string | null;
  created_at: number;
  sent_at: number;
  expires_at: number;
  accepted_at: number | null;
  revoked_at: number | null;
  user_id: string | null;
};

const n = (v: number | null): number | null => (v === null ? null : Number(v));

const toRecord = (r: Row): InvitationRecord => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  role: r.role,
  tokenHash: r.token_hash,
  language: r.language,
  invitedBy: r.invited_by,
  createdAt: Number(r.created_at),
  sentAt: Number(r.sent_at),
  expiresAt: Number(r.expires_at),
  acceptedAt: n(r.accepted_at),
  revokedAt: n(r.revoked_at),
  userId: r.user_id,
});

const COLUMNS =
  'id, account_id, email, role, token_hash, language, invited_by, created_at, sent_at, expires_at, accepted_at, revoked_at, user_id';

export async function insertInvitation(tx: Tx, i: InvitationRecord): Promise<void> {
  await tx.run(`INSERT INTO invitations (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
    i.id,
    i.accountId,
    i.email,
    i.role,
    i.tokenHash,
    i.language,
    i.invitedBy,
    i.createdAt,
    i.sentAt,
    i.expiresAt,
    i.acceptedAt,
    i.revokedAt,
    i.userId,
  ]);
}

export async function getInvitation(q: Queryable, id: string): Promise<InvitationRecord | undefined> {
  const r = await one<Row>(q, `SELECT ${COLUMNS} FROM invitations WHERE id = $1`, [id]);
  return r && toRecord(r);
}

/** The invitation behind a link's token hash, locked for the transaction that accepts it. */
export async function findInvitationByTokenHash(tx: Tx, tokenHash: string): Promise<InvitationRecord | undefined> {
  const r = await one<Row>(tx, `SELECT ${COLUMNS} FROM invitations WHERE token_hash = $1 ${tx.forUpdate}`, [tokenHash]);
  return r && toRecord(r);
}

/** The account's invitations not accepted nor revoked, newest first (expired ones too: they can be resent). */
export async function listOpenInvitations(q: Queryable, accountId: string): Promise<InvitationRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM invitations WHERE account_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL ORDER BY id DESC LIMIT 200`,
    [accountId],
  );
  return rows.map(toRecord);
}

/** The open invitation of this email in this account, if any. */
export async function findOpenInvitation(q: Queryable, accountId: string, email: string): Promise<InvitationRecord | undefined> {
  const r = await one<Row>(
    q,
    `SELECT ${COLUMNS} FROM invitations WHERE account_id = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL`,
    [accountId, email],
  );
  return r && toRecord(r);
}

export async function renewInvitation(tx: Tx, id: string, tokenHash: string, sentAt: number, expiresAt: number): Promise<boolean> {
  return (
    (await tx.run(
      'UPDATE invitations SET token_hash = $2, sent_at = $3, expires_at = $4 WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL',
      [id, tokenHash, sentAt, expiresAt],
    )) === 1
  );
}

export async function revokeInvitation(tx: Tx, id: string, now: number): Promise<boolean> {
  return (
    (await tx.run('UPDATE invitations SET revoked_at = $2 WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL', [id, now])) === 1
  );
}

export async function markInvitationAccepted(tx: Tx, id: string, userId: string, now: number): Promise<boolean> {
  return (
    (await tx.run('UPDATE invitations SET accepted_at = $2, user_id = $3 WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL', [
      id,
      now,
      userId,
    ])) === 1
  );
}

/** The account an invitation link names, whatever the invitation's state (its write checks that). */
export async function invitationAccountByTokenHash(q: Queryable, tokenHash: string): Promise<string | undefined> {
  return (await one<{ account_id: string }>(q, 'SELECT account_id FROM invitations WHERE token_hash = $1', [tokenHash]))?.account_id;
}
