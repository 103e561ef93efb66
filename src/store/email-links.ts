// Single-use links sent by email (a verification, a password reset), kept as the SHA-256 of their
// token (decision 0081), and the facts they establish: a user's verified address, the first owner
// of a self-hosted instance. (The sign-up trial is billing's: store/billing.ts startSignupTrial.)
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';

export type EmailLinkPurpose = 'verify-email' | 'reset-password';

export type EmailLink = {
  id: string;
  purpose: EmailLinkPurpose;
  userId: string;
  email: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
};

export async function insertEmailLink(tx: Tx, link: EmailLink & { tokenHash: string }): Promise<void> {
  await tx.run(
    'INSERT INTO email_links (id, purpose, user_id, email, token_hash, created_at, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [link.id, link.purpose, link.userId, link.email, link.tokenHash, link.createdAt, link.expiresAt, link.usedAt],
  );
}

/**
 * Spends the link of `purpose` with this token hash, if it is unused and unexpired at `now`: in
 * one statement, so two requests with the same link cannot both spend it. Answers what it spent.
 */
export async function spendEmailLink(tx: Tx, purpose: EmailLinkPurpose, tokenHash: string, now: number): Promise<EmailLink | undefined> {
  const r = await one<{ id: string; user_id: string; email: string; created_at: number; expires_at: number }>(
    tx,
    `UPDATE email_links SET used_at = $3 WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
     RETURNING id, user_id, email, created_at, expires_at`,
    [tokenHash, purpose, now],
  );
  return (
    r && {
      id: r.id,
      purpose,
      userId: r.user_id,
      email: r.email,
      createdAt: Number(r.created_at),
      expiresAt: Number(r.expires_at),
      usedAt: now,
    }
  );
}

/** Every other unused link of the user for `purpose` is spent too (a reset ends the other reset links). */
export async function spendUserLinks(tx: Tx, userId: string, purpose: EmailLinkPurpose, now: number): Promise<void> {
  await tx.run('UPDATE email_links SET used_at = $3 WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL', [userId, purpose, now]);
}

export async function markEmailVerified(tx: Tx, userId: string, now: number): Promise<void> {
  await tx.run('UPDATE users SET email_verified_at = $2 WHERE id = $1 AND email_verified_at IS NULL', [userId, now]);
}

export async function isEmailVerified(q: Queryable, userId: string): Promise<boolean> {
  const r = await one<{ email_verified_at: number | null }>(q, 'SELECT email_verified_at FROM users WHERE id = $1', [userId]);
  return r !== undefined && r.email_verified_at !== null;
}

const FIRST_OWNER = 'first_owner_signed_up';

/**
 * Claims the one first-owner sign-up of an instance (SIGNUP=first-owner): true for the one
 * transaction that inserts the mark (a concurrent one waits on the key, then finds it taken) and
 * only while no account exists.
 */
export async function claimFirstOwner(tx: Tx, now: number): Promise<boolean> {
  if ((await tx.query('SELECT id FROM accounts LIMIT 1')).length > 0) return false;
  const n = await tx.run('INSERT INTO service_settings (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
    FIRST_OWNER,
    String(now),
    now,
  ]);
  return n === 1;
}
