// Requests to change a user's email (decision 0082): the new address is written to the user only
// when its link is followed. A user has at most one request that counts: a new one replaces it.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';

export type EmailChangeRecord = {
  id: string;
  userId: string;
  accountId: string;
  newEmail: string;
  tokenHash: string;
  language: string;
  createdAt: number;
  expiresAt: number;
  confirmedAt: number | null;
};

type Row = {
  id: string;
  user_id: string;
  account_id: string;
  new_email: string;
  token_hash: string;
  language: string;
  created_at: number;
  expires_at: number;
  confirmed_at: number | null;
};

const COLUMNS = 'id, user_id, account_id, new_email, token_hash, language, created_at, expires_at, confirmed_at';

/** Records the request; the user's earlier unconfirmed requests stop (their links no longer work). */
export async function replaceEmailChange(tx: Tx, c: EmailChangeRecord): Promise<void> {
  await tx.run('DELETE FROM email_changes WHERE user_id = $1 AND confirmed_at IS NULL', [c.userId]);
  await tx.run(`INSERT INTO email_changes (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
    c.id,
    c.userId,
    c.accountId,
    c.newEmail,
    c.tokenHash,
    c.language,
    c.createdAt,
    c.expiresAt,
    c.confirmedAt,
  ]);
}

export async function findEmailChangeByTokenHash(tx: Tx, tokenHash: string): Promise<EmailChangeRecord | undefined> {
  const r = await one<Row>(tx, `SELECT ${COLUMNS} FROM email_changes WHERE token_hash = $1 ${tx.forUpdate}`, [tokenHash]);
  return (
    r && {
      id: r.id,
      userId: r.user_id,
      accountId: r.account_id,
      newEmail: r.new_email,
      tokenHash: r.token_hash,
      language: r.language,
      createdAt: Number(r.created_at),
      expiresAt: Number(r.expires_at),
      confirmedAt: r.confirmed_at === null ? null : Number(r.confirmed_at),
    }
  );
}

export async function markEmailChangeConfirmed(tx: Tx, id: string, now: number): Promise<boolean> {
  return (await tx.run('UPDATE email_changes SET confirmed_at = $2 WHERE id = $1 AND confirmed_at IS NULL', [id, now])) === 1;
}

export async function setUserEmail(tx: Tx, userId: string, email: string): Promise<void> {
  await tx.run('UPDATE users SET email = $2 WHERE id = $1', [userId, email]);
}

/** The account an email change link names, whatever its state (its write checks that). */
export async function emailChangeAccountByTokenHash(q: Queryable, tokenHash: string): Promise<string | undefined> {
  return (await one<{ account_id: string }>(q, 'SELECT account_id FROM email_changes WHERE token_hash = $1', [tokenHash]))?.account_id;
}
