// Signing staff users in and out, switching branch and changing one's own password. Sign-in has
// no actor yet, so it takes the services directly; the others run as the session's user.
import type { Action, Ctx, Services } from '../core/ctx.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { newId, randomToken } from '../domain/ids.ts';
import { hashPassword, needsRehash, verifyPassword } from '../domain/password-hash.ts';
import { findUserByEmail, getUser, replacePasswordHash, setUserPassword, type UserRecord } from '../store/credentials.ts';
import type { Tx } from '../core/db.ts';
import { passwordProblem } from '../domain/password-policy.ts';
import { isEmailVerified } from '../store/email-links.ts';
import { getBranch, listBranches, type Branch } from '../store/tenancy.ts';
import type { Mode } from '../core/tenancy.ts';
import {
  insertSession,
  restampSessions,
  revokeSession,
  revokeUserSessions,
  setSessionBranch,
  type SessionView,
} from '../store/sessions.ts';
import { hashSessionToken, passwordStamp, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../domain/session-token.ts';
import type { SessionObject } from '../contract/session-schema.ts';

export const WRONG_CREDENTIALS = 'The email or password is wrong.';

let dummyHash: Promise<string> | null = null;

/**
 * Returns the new session's cookie token. An unknown email still costs one password hash, so the
 * answer's timing does not tell which emails have accounts; the message is the same either way.
 * A hash of an older scheme is replaced while the plain password is at hand (decision 0014).
 */
export async function signIn(
  services: Services,
  input: { email: string; password: string; branch?: string },
): Promise<{ token: string; sessionId: string }> {
  const { db, clock } = services;
  const user = await findUserByEmail(db, input.email.trim().toLowerCase());
  dummyHash ??= hashPassword('readybell timing equaliser');
  const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash));
  if (user === undefined || user.removedAt !== null || !ok) throw new AppError('unauthenticated', WRONG_CREDENTIALS);
  const branches = await listBranches(db, user.accountId);
  const branch = input.branch === undefined ? branches[0] : branches.find((b) => b.id === input.branch);
  if (branch === undefined) {
    if (input.branch !== undefined) throw invalid('/branch', 'This account has no such branch.');
    throw new AppError('conflict', 'This account has no branch yet; an operator creates one with the CLI.');
  }
  const rehashed = needsRehash(user.passwordHash) ? await hashPassword(input.password) : null;
  const now = clock.now();
  return db.write(async (tx) => {
    let hash = user.passwordHash;
    // A rehash is not a password change: the user's other sessions are moved to the new stamp.
    if (rehashed !== null && (await replacePasswordHash(tx, user.id, user.passwordHash, rehashed))) {
      await restampSessions(tx, user.id, passwordStamp(user.passwordHash), passwordStamp(rehashed));
      hash = rehashed;
    }
    return startSession(tx, { ...user, passwordHash: hash }, branch.id, now);
  });
}

/** A new session of `user` on `branchId`, in `tx`: its cookie token (only its hash is stored). */
export async function startSession(
  tx: Tx,
  user: Pick<UserRecord, 'id' | 'accountId' | 'passwordHash'>,
  branchId: string,
  now: number,
): Promise<{ token: string; sessionId: string }> {
  const token = randomToken(32);
  const id = newId('session', now);
  await insertSession(tx, {
    id,
    tokenHash: hashSessionToken(token),
    userId: user.id,
    accountId: user.accountId,
    branchId,
    passwordStamp: passwordStamp(user.passwordHash),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + SESSION_ABSOLUTE_MS,
    revokedAt: null,
  });
  return { token, sessionId: id };
}

/** The session as /v1 answers it: the type of its schema, so the two cannot drift apart. */
export type SessionSummary = SessionObject;

/** `mode` is the one the request asked for (Readybell-Mode): a session has none of its own. */
export async function summarise(
  services: Services,
  view: SessionView,
  csrfToken: string,
  mode: Mode,
  branchId = view.branchId,
): Promise<SessionSummary> {
  const branches = await listBranches(services.db, view.accountId);
  const branch = branches.find((b) => b.id === branchId) as Branch;
  return {
    object: 'session',
    user: {
      id: view.user.id,
      email: view.user.email,
      role: view.user.role,
      email_verified: await isEmailVerified(services.db, view.user.id),
    },
    account: { id: view.account.id, name: view.account.name, plan: view.account.plan, api_access: view.account.plan !== 'free' },
    branch: { id: branch.id, name: branch.name, timezone: branch.timezone },
    branches: branches.map((b) => ({ id: b.id, name: b.name })),
    mode,
    csrf_token: csrfToken,
    expires_at: new Date(view.expiresAt).toISOString(),
    idle_timeout_seconds: SESSION_IDLE_MS / 1000,
  };
}

function sessionUser(ctx: Ctx): string {
  if (ctx.actor.kind !== 'user') throw new AppError('forbidden', 'Only a signed-in staff user has a session; API keys do not.');
  return ctx.actor.userId;
}

export const signOut: Action<{ sessionId: string }, void> = async ({ ctx, input }) => {
  sessionUser(ctx);
  await revokeSession(ctx.tx, input.sessionId, ctx.services.clock.now());
};

/** Branches belong to the account, so any user of the account may work at any of its branches. */
export const switchBranch: Action<{ sessionId: string; branch: string }, string> = async ({ ctx, input }) => {
  sessionUser(ctx);
  const branch = await getBranch(ctx.tx, input.branch);
  if (branch === undefined || branch.accountId !== ctx.accountId) throw invalid('/branch', 'Your account has no such branch.');
  await setSessionBranch(ctx.tx, input.sessionId, branch.id);
  return branch.id;
};

/** Every session of the user ends, this one included: the page signs in again with the new password. */
export const changeOwnPassword: Action<{ current_password: string; new_password: string }, void> = async ({ ctx, input }) => {
  const userId = sessionUser(ctx);
  const user = await getUser(ctx.tx, userId);
  if (user === undefined || !(await verifyPassword(input.current_password, user.passwordHash))) {
    throw invalid('/current_password', 'The current password is wrong.');
  }
  const weak = passwordProblem(input.new_password, [user.email]);
  if (weak !== null) throw invalid('/new_password', weak);
  await setUserPassword(ctx.tx, userId, await hashPassword(input.new_password));
  await revokeUserSessions(ctx.tx, userId, ctx.services.clock.now());
};
