// Leaving (decision 0083): an owner deletes the account, and may restore it within 30 days. The
// deletion stops the account's keys and sessions in its own transaction (store/account-deletion.ts),
// mails every owner, and enqueues ACCOUNT_DELETION_REQUESTED for what must happen outside the store
// (the Stripe subscription's cancellation: jobs/account-deletion.ts). The hourly maintenance erases
// what is left when the 30 days have passed. While it waits, an owner may sign in to export the
// data or restore the account; nothing else of it works.
import { readerOf, type Action, type Read } from '../core/ctx.ts';
import { defineJobKind } from '../core/job-registry.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { listUsers } from '../store/credentials.ts';
import { deletionRequestedAt, ERASE_AFTER_MS, markAccountDeleted, unmarkAccountDeleted } from '../store/account-deletion.ts';
import { enqueueJob, newJob } from '../store/outbox.ts';
import { getAccount } from '../store/tenancy.ts';
import { staffLink } from './account-mail.ts';
import { queueMail } from '../mail/queue-mail.ts';
import type { MailLanguage } from '../mail/mail-kind.ts';
import { ACCOUNT_DELETION_MAIL } from '../mail/kinds/account-deletion.ts';
import { requireStaffRole } from './staff-only.ts';
import { presentAccount, type AccountObject } from '../contract/account-schemas.ts';

/**
 * Committed with every deletion, once per deletion. Its handler is where billing cancels the
 * account's subscription at Stripe; a restore within the 30 days does not undo it (the owner
 * subscribes again), which the deletion's confirmation says.
 */
export const ACCOUNT_DELETION_REQUESTED = defineJobKind<{ accountId: string; requestedAt: number }>(
  'account.deletion_requested',
  'webhook',
);

export const readAccountStatus: Read<void, AccountObject> = async ({ ctx }) => {
  requireStaffRole(ctx, 'owner');
  const q = readerOf(ctx);
  const account = (await getAccount(q, ctx.accountId))!;
  const at = await deletionRequestedAt(q, ctx.accountId);
  return presentAccount({ ...account, deletionRequestedAt: at, eraseAt: at === null ? null : at + ERASE_AFTER_MS });
};

/** `name` repeats the account's name, as a person types it to confirm. */
export const deleteAccount: Action<{ name: string; language?: MailLanguage }, AccountObject> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  const account = (await getAccount(ctx.tx, ctx.accountId))!;
  if (input.name.trim() !== account.name) throw invalid('/name', "is not the account's name");
  const now = ctx.services.clock.now();
  if (!(await markAccountDeleted(ctx.tx, ctx.accountId, now))) throw new AppError('conflict', 'This account is being deleted already.');
  await enqueueJob(
    ctx.tx,
    newJob(
      ACCOUNT_DELETION_REQUESTED,
      `account-deletion:${ctx.accountId}:${now}`,
      { accountId: ctx.accountId, requestedAt: now },
      now,
      now,
      {
        accountId: ctx.accountId,
      },
    ),
  );
  ctx.tx.afterCommit(() => ctx.services.jobs.wake());
  const eraseAt = now + ERASE_AFTER_MS;
  // The day, in UTC: the account's branches may be in several zones, and a day early is no harm.
  const eraseDate = new Date(eraseAt).toISOString().slice(0, 10);
  for (const owner of (await listUsers(ctx.tx, ctx.accountId)).filter((u) => u.role === 'owner')) {
    await queueMail(ctx, ACCOUNT_DELETION_MAIL, {
      to: owner.email,
      lang: input.language ?? 'en',
      shop: account.name,
      values: { link: staffLink(ctx.services, ''), erase_date: eraseDate },
      key: `${ctx.accountId}:${now}:${owner.id}`,
      accountId: ctx.accountId,
    });
  }
  return presentAccount({ ...account, deletionRequestedAt: now, eraseAt });
};

export const restoreAccount: Action<void, AccountObject> = async ({ ctx }) => {
  requireStaffRole(ctx, 'owner');
  const account = (await getAccount(ctx.tx, ctx.accountId))!;
  if (!(await unmarkAccountDeleted(ctx.tx, ctx.accountId, ctx.services.clock.now())))
    throw new AppError('conflict', 'This account is not being deleted.');
  return presentAccount({ ...account, deletionRequestedAt: null, eraseAt: null });
};

/** What a staff session of an account being deleted may still do: see itself, sign out, export, restore. */
const OPEN_WHILE_DELETED = new Set([
  'GET /v1/session',
  'DELETE /v1/session',
  'GET /v1/account',
  'GET /v1/account/export',
  'POST /v1/account/restore',
]);

/** Refuses any other operation (`METHOD /route`) of a session whose account is being deleted. */
export function refuseWhileDeleted(deletionRequestedAt: number | null, operation: string): void {
  if (deletionRequestedAt === null || OPEN_WHILE_DELETED.has(operation)) return;
  throw new AppError('forbidden', 'This account is being deleted: an owner may export its data or restore it, nothing else.');
}
