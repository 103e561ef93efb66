// Operator actions (CLI and staff page): accounts, branches, keys and users. They run as the
// system or an owner; the HTTP API does not expose them (PRODUCT.md §3).
import type { Tx } from '../core/db.ts';
import { newId } from '../domain/ids.ts';
import { AppError } from '../domain/errors.ts';
import { isValidTimeZone } from '../domain/local-time.ts';
import { DEFAULT_SETTINGS } from '../domain/branch-settings.ts';
import { hashApiKey, newApiKey, newPassword } from '../domain/secrets.ts';
import { hashPassword } from '../domain/password-hash.ts';
import { getBranch, getAccount, insertAccount, insertBranch, insertQueue, type Account, type Branch } from '../store/tenancy.ts';
import { PLANS, type Mode, type Plan } from '../core/tenancy.ts';
import { findUserByEmail, insertApiKey, insertUser } from '../store/credentials.ts';
import { ROLES, type Role } from '../core/tenancy.ts';
import { markEmailVerified } from '../store/email-links.ts';

export function assertPlan(plan: string): Plan {
  if (!(PLANS as readonly string[]).includes(plan)) throw new AppError('validation-failed', `Plan must be one of ${PLANS.join(', ')}.`);
  return plan as Plan;
}

export async function createAccount(tx: Tx, input: { name: string; plan: string }, now: number): Promise<Account> {
  if (input.name.trim() === '') throw new AppError('validation-failed', 'An account needs a name.');
  const account: Account = { id: newId('account', now), name: input.name.trim(), plan: assertPlan(input.plan), createdAt: now };
  await insertAccount(tx, account);
  return account;
}

export async function createBranch(tx: Tx, input: { accountId: string; name: string; timezone?: string }, now: number): Promise<Branch> {
  if ((await getAccount(tx, input.accountId)) === undefined) throw new AppError('not-found', `No account ${input.accountId}.`);
  const timezone = input.timezone ?? 'UTC';
  if (!isValidTimeZone(timezone)) throw new AppError('validation-failed', `"${timezone}" is not an IANA time zone such as Europe/Paris.`);
  const branch: Branch = {
    id: newId('branch', now),
    accountId: input.accountId,
    name: input.name.trim() || 'Branch',
    timezone,
    defaultQueue: 'A',
    settings: DEFAULT_SETTINGS,
    createdAt: now,
    updatedAt: now,
  };
  await insertBranch(tx, branch);
  await insertQueue(tx, { branchId: branch.id, name: 'A', createdAt: now });
  return branch;
}

export async function createApiKey(
  tx: Tx,
  input: { branchId: string; mode: Mode; name?: string | null },
  now: number,
): Promise<{ id: string; key: string; mode: Mode; branch: string }> {
  const branch = await getBranch(tx, input.branchId);
  if (branch === undefined) throw new AppError('not-found', `No branch ${input.branchId}.`);
  if (input.mode !== 'live' && input.mode !== 'test') throw new AppError('validation-failed', 'Mode must be live or test.');
  const key = newApiKey(input.mode);
  const id = newId('key', now);
  await insertApiKey(tx, {
    id,
    accountId: branch.accountId,
    branchId: branch.id,
    mode: input.mode,
    name: input.name ?? null,
    hash: hashApiKey(key),
    last4: key.slice(-4),
    createdAt: now,
    revokedAt: null,
    lastUsedAt: null,
  });
  return { id, key, mode: input.mode, branch: branch.id };
}

export async function createUser(
  tx: Tx,
  input: {
    accountId: string;
    email: string;
    role: string;
    password?: string;
    /** A password already checked and hashed (sign-up hashes before its transaction); `password` is then ''. */
    passwordHash?: string;
    /** False for a user who signed up: their address is verified by the link they are sent. Default: vouched for. */
    emailVerified?: boolean;
  },
  now: number,
): Promise<{ id: string; email: string; role: Role; password: string }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new AppError('validation-failed', `"${input.email}" is not an email address.`);
  if (!(ROLES as readonly string[]).includes(input.role))
    throw new AppError('validation-failed', `Role must be one of ${ROLES.join(', ')}.`);
  if ((await getAccount(tx, input.accountId)) === undefined) throw new AppError('not-found', `No account ${input.accountId}.`);
  if ((await findUserByEmail(tx, email)) !== undefined) throw new AppError('conflict', `A user with email ${email} exists.`);
  const password = input.passwordHash === undefined ? (input.password ?? newPassword()) : '';
  if (input.passwordHash === undefined && password.length < 10)
    throw new AppError('validation-failed', 'Passwords need at least 10 characters.');
  const id = newId('user', now);
  await insertUser(tx, {
    id,
    accountId: input.accountId,
    email,
    role: input.role as Role,
    passwordHash: input.passwordHash ?? (await hashPassword(password)),
    createdAt: now,
    removedAt: null,
  });
  if (input.emailVerified !== false) await markEmailVerified(tx, id, now);
  return { id, email, role: input.role as Role, password };
}
