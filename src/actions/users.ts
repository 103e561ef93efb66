// Staff users of the account, managed by owners in the staff page. An invitation's password is
// random and shown once; the invited user changes it after signing in. An account always keeps
// at least one owner, so nobody can lock the account out of its own administration.
import { readerOf, type Action, type Read, type TxCtx } from '../core/ctx.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import { newPassword } from '../domain/secrets.ts';
import { hashPassword } from '../domain/password-hash.ts';
import { createUser } from './provision.ts';
import { getUser, listUsers, lockedOwners, removeUser, setUserPassword, setUserRole, type UserRecord } from '../store/credentials.ts';
import type { Role } from '../core/tenancy.ts';
import { revokeUserSessions } from '../store/sessions.ts';
import { requireStaffRole } from './staff-only.ts';

export const listAccountUsers: Read<void, UserRecord[]> = async ({ ctx }) => {
  requireStaffRole(ctx, 'owner');
  return listUsers(readerOf(ctx), ctx.accountId);
};

export const inviteUser: Action<{ email: string; role: Role }, { user: UserRecord; password: string }> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  let created: Awaited<ReturnType<typeof createUser>>;
  try {
    created = await createUser(ctx.tx, { accountId: ctx.accountId, email: input.email, role: input.role }, ctx.services.clock.now());
  } catch (err) {
    // Emails are unique across the service; say so without telling which account holds it.
    if (err instanceof AppError && err.code === 'conflict')
      throw new AppError('conflict', 'This email already has a readybell user.', { errors: [{ pointer: '/email', detail: 'is taken' }] });
    if (err instanceof AppError && err.code === 'validation-failed') throw invalid('/email', err.detail);
    throw err;
  }
  return { user: (await getUser(ctx.tx, created.id))!, password: created.password };
};

async function accountUser(ctx: TxCtx, id: string): Promise<UserRecord> {
  const user = await getUser(ctx.tx, id);
  if (user === undefined || user.accountId !== ctx.accountId || user.removedAt !== null) throw notFound('user');
  return user;
}

async function assertAnotherOwner(ctx: TxCtx, user: UserRecord, doing: string): Promise<void> {
  if (user.role !== 'owner') return;
  const others = (await lockedOwners(ctx.tx, ctx.accountId)).filter((id) => id !== user.id);
  if (others.length === 0) {
    const detail = `The account's last owner cannot be ${doing}; make someone else owner first.`;
    throw new AppError('last-owner', detail, doing === 'demoted' ? { errors: [{ pointer: '/role', detail }] } : {});
  }
}

export const updateUser: Action<
  { id: string; role?: Role; reset_password?: boolean },
  { user: UserRecord; password: string | null }
> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  const user = await accountUser(ctx, input.id);
  if (input.role !== undefined && input.role !== user.role) {
    if (user.role === 'owner') await assertAnotherOwner(ctx, user, 'demoted');
    await setUserRole(ctx.tx, user.id, input.role);
  }
  let password: string | null = null;
  if (input.reset_password === true) {
    // The new hash changes the sessions' password stamp: every session of the user ends.
    password = newPassword();
    await setUserPassword(ctx.tx, user.id, await hashPassword(password));
    await revokeUserSessions(ctx.tx, user.id, ctx.services.clock.now());
  }
  return { user: (await getUser(ctx.tx, user.id))!, password };
};

export const deleteUser: Action<{ id: string }, UserRecord> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  const user = await accountUser(ctx, input.id);
  await assertAnotherOwner(ctx, user, 'removed');
  if (ctx.actor.kind === 'user' && ctx.actor.userId === user.id)
    throw new AppError('conflict', 'You cannot remove yourself; another owner can.');
  const now = ctx.services.clock.now();
  await removeUser(ctx.tx, user.id, now);
  await revokeUserSessions(ctx.tx, user.id, now);
  return (await getUser(ctx.tx, user.id))!;
};
