// API keys and staff users. Only hashes are stored: SHA-256 for keys (160+ random bits need no
// stretching, and one hash keeps auth cheap on the hot path), argon2id for human passwords.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { Mode, Role } from '../core/tenancy.ts';
import { credentialsChanged } from './credential-changes.ts';

export type ApiKeyRecord = {
  id: string;
  accountId: string;
  branchId: string;
  mode: Mode;
  name: string | null;
  hash: string;
  last4: string;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
};

type KeyRow = {
  id: string;
  account_id: string;
  branch_id: string;
  mode: Mode;
  name: string | null;
  hash: string;
  last4: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
};

const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  branchId: r.branch_id,
  mode: r.mode,
  name: r.name,
  hash: r.hash,
  last4: r.last4,
  createdAt: Number(r.created_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
});

const KEY_COLUMNS = 'id, account_id, branch_id, mode, name, hash, last4, created_at, revoked_at, last_used_at';

export async function insertApiKey(tx: Tx, k: ApiKeyRecord): Promise<void> {
  await tx.run(
    `INSERT INTO api_keys (id, account_id, branch_id, mode, name, hash, last4, created_at, revoked_at, last_used_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [k.id, k.accountId, k.branchId, k.mode, k.name, k.hash, k.last4, k.createdAt, k.revokedAt, k.lastUsedAt],
  );
}

export async function findApiKeyByHash(q: Queryable, hash: string): Promise<ApiKeyRecord | undefined> {
  const r = await one<KeyRow>(q, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`, [hash]);
  return r && toKey(r);
}

/** The key and its account's plan in one query: this runs on every API request. */
export async function findApiKeyWithPlan(q: Queryable, hash: string): Promise<(ApiKeyRecord & { plan: string }) | undefined> {
  const r = await one<KeyRow & { plan: string }>(
    q,
    // A key of an account being deleted reads as revoked since the deletion (decision 0083): it
    // stops at once, and works again if the account is restored.
    `SELECT k.id, k.account_id, k.branch_id, k.mode, k.name, k.hash, k.last4, k.created_at,
            COALESCE(k.revoked_at, a.deletion_requested_at) AS revoked_at, k.last_used_at, a.plan
     FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`,
    [hash],
  );
  return r && { ...toKey(r), plan: r.plan };
}

/** Whether the key works: not revoked, and its account not being deleted. */
export async function apiKeyUsable(q: Queryable, id: string): Promise<boolean> {
  const r = await one<{ id: string }>(
    q,
    'SELECT k.id FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = $1 AND k.revoked_at IS NULL AND a.deletion_requested_at IS NULL',
    [id],
  );
  return r !== undefined;
}

export async function getApiKey(q: Queryable, id: string): Promise<ApiKeyRecord | undefined> {
  const r = await one<KeyRow>(q, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
  return r && toKey(r);
}

export async function listApiKeys(q: Queryable, branchId: string): Promise<ApiKeyRecord[]> {
  const rows = await q.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE branch_id = $1 ORDER BY id DESC`, [branchId]);
  return rows.map(toKey);
}

export async function revokeApiKey(tx: Tx, id: string, now: number): Promise<boolean> {
  await credentialsChanged(tx);
  return (await tx.run('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, now])) === 1;
}

export async function touchApiKeys(tx: Tx, ids: readonly string[], now: number): Promise<void> {
  for (const id of ids) await tx.run('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [id, now]);
}

export type UserRecord = {
  id: string;
  accountId: string;
  email: string;
  role: Role;
  passwordHash: string;
  createdAt: number;
  removedAt: number | null;
};

type UserRow = {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  password_hash: string;
  created_at: number;
  removed_at: number | null;
};

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  role: r.role,
  passwordHash: r.password_hash,
  createdAt: Number(r.created_at),
  removedAt: r.removed_at === null ? null : Number(r.removed_at),
});

const USER_COLUMNS = 'id, account_id, email, role, password_hash, created_at, removed_at';

export async function insertUser(tx: Tx, u: UserRecord): Promise<void> {
  await tx.run(
    `INSERT INTO users (id, account_id, email, role, password_hash, created_at, removed_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [u.id, u.accountId, u.email, u.role, u.passwordHash, u.createdAt, u.removedAt],
  );
}

export async function findUserByEmail(q: Queryable, email: string): Promise<UserRecord | undefined> {
  const r = await one<UserRow>(q, `SELECT ${USER_COLUMNS} FROM users WHERE email = $1`, [email.toLowerCase()]);
  return r && toUser(r);
}

export async function getUser(q: Queryable, id: string): Promise<UserRecord | undefined> {
  const r = await one<UserRow>(q, `SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return r && toUser(r);
}

export async function listUsers(q: Queryable, accountId: string): Promise<UserRecord[]> {
  const rows = await q.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE account_id = $1 AND removed_at IS NULL ORDER BY id`, [
    accountId,
  ]);
  return rows.map(toUser);
}

/**
 * The account's owners, read under a lock on the account row that the transaction holds until it
 * ends: two owners demoting each other at once are serialised, and the second sees the first.
 */
export async function lockedOwners(tx: Tx, accountId: string): Promise<string[]> {
  await tx.query(`SELECT id FROM accounts WHERE id = $1 ${tx.forUpdate}`, [accountId]);
  const rows = await tx.query<{ id: string }>("SELECT id FROM users WHERE account_id = $1 AND removed_at IS NULL AND role = 'owner'", [
    accountId,
  ]);
  return rows.map((r) => r.id);
}

export async function setUserPassword(tx: Tx, id: string, hash: string): Promise<void> {
  await tx.run('UPDATE users SET password_hash = $2 WHERE id = $1', [id, hash]);
}

/**
 * Replaces the hash only if it is still `from`: a password changed meanwhile is never overwritten
 * with a rehash of the old one.
 */
export async function replacePasswordHash(tx: Tx, id: string, from: string, to: string): Promise<boolean> {
  return (await tx.run('UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [id, from, to])) === 1;
}

export async function setUserRole(tx: Tx, id: string, role: Role): Promise<boolean> {
  return (await tx.run('UPDATE users SET role = $2 WHERE id = $1 AND removed_at IS NULL', [id, role])) === 1;
}

export async function removeUser(tx: Tx, id: string, now: number): Promise<boolean> {
  return (await tx.run('UPDATE users SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL', [id, now])) === 1;
}
