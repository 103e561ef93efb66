// A staff user changes their own email (decision 0082): the new address confirms first, by the
// link mailed to it, and only then becomes the user's; the old address is then told, so that a
// change nobody asked for is noticed. The current password is asked, so that a session left open
// on a counter cannot hand the account to someone else's inbox.
import type { Action, Ctx, Services } from '../core/ctx.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { hashLinkToken, LINK_TOKEN_SHAPE, newLinkToken } from '../domain/link-token.ts';
import { verifyPassword } from '../domain/password-hash.ts';
import { findUserByEmail, getUser } from '../store/credentials.ts';
import {
  emailChangeAccountByTokenHash,
  findEmailChangeByTokenHash,
  markEmailChangeConfirmed,
  replaceEmailChange,
  setUserEmail,
} from '../store/email-changes.ts';
import { getAccount, listBranches } from '../store/tenancy.ts';
import { staffLink } from './account-mail.ts';
import { queueMail } from '../mail/queue-mail.ts';
import type { MailLanguage } from '../mail/mail-kind.ts';
import { EMAIL_CHANGE_CONFIRM_MAIL } from '../mail/kinds/email-change-confirm.ts';
import { EMAIL_CHANGED_MAIL } from '../mail/kinds/email-changed.ts';
import { systemCtx } from './system-ctx.ts';
import type { EmailChangeObject } from '../contract/account-schemas.ts';
import { iso } from '../contract/present.ts';

export const EMAIL_CHANGE_TTL_MS = 24 * 3600_000;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const UNUSABLE = 'This confirmation link has expired, was replaced or was already used; ask for the change again.';

/** Mails a confirmation link to the new address; nothing changes until it is followed. */
export const requestEmailChange: Action<{ email: string; password: string; language?: MailLanguage }, EmailChangeObject> = async ({
  ctx,
  input,
}) => {
  if (ctx.actor.kind !== 'user') throw new AppError('forbidden', 'Only a signed-in staff user changes their email; API keys have none.');
  const user = (await getUser(ctx.tx, ctx.actor.userId))!;
  if (!(await verifyPassword(input.password, user.passwordHash))) throw invalid('/password', 'The password is wrong.');
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw invalid('/email', 'is not an email address');
  if (email === user.email) throw invalid('/email', 'is your email already');
  // Said to the signed-in user only, who then learns what any invitation would tell them too.
  if ((await findUserByEmail(ctx.tx, email)) !== undefined)
    throw new AppError('conflict', 'This email already has a readybell user.', { errors: [{ pointer: '/email', detail: 'is taken' }] });
  const now = ctx.services.clock.now();
  const token = newLinkToken();
  const language = input.language ?? 'en';
  const expiresAt = now + EMAIL_CHANGE_TTL_MS;
  const id = newId('emailChange', now);
  await replaceEmailChange(ctx.tx, {
    id,
    userId: user.id,
    accountId: ctx.accountId,
    newEmail: email,
    tokenHash: hashLinkToken(token),
    language,
    createdAt: now,
    expiresAt,
    confirmedAt: null,
  });
  const account = (await getAccount(ctx.tx, ctx.accountId))!;
  await queueMail(ctx, EMAIL_CHANGE_CONFIRM_MAIL, {
    to: email,
    lang: language,
    shop: account.name,
    values: { link: staffLink(ctx.services, 'confirm-email', token) },
    key: id,
    accountId: ctx.accountId,
  });
  return { object: 'email_change', email, status: 'awaiting_confirmation', expires_at: iso(expiresAt) };
};

/** The system's ctx on the account an email change link names, for the write that confirms it. */
export async function emailChangeCtx(services: Services, token: string): Promise<Ctx> {
  if (!LINK_TOKEN_SHAPE.test(token)) throw invalid('/token', UNUSABLE);
  const accountId = await emailChangeAccountByTokenHash(services.db, hashLinkToken(token));
  const account = accountId === undefined ? undefined : await getAccount(services.db, accountId);
  const branch = account && (await listBranches(services.db, account.id))[0];
  if (branch === undefined) throw invalid('/token', UNUSABLE);
  return systemCtx(services, account!.id, account!.plan, branch.id, 'live', 'email-change');
}

/** The new address becomes the user's; the old one is told. Sessions stay: the password did not change. */
export const confirmEmailChange: Action<{ token: string }, EmailChangeObject> = async ({ ctx, input }) => {
  const now = ctx.services.clock.now();
  const change = await findEmailChangeByTokenHash(ctx.tx, hashLinkToken(input.token));
  if (change === undefined || change.accountId !== ctx.accountId || change.confirmedAt !== null || now >= change.expiresAt)
    throw invalid('/token', UNUSABLE);
  const user = await getUser(ctx.tx, change.userId);
  if (user === undefined || user.removedAt !== null) throw invalid('/token', UNUSABLE);
  if ((await findUserByEmail(ctx.tx, change.newEmail)) !== undefined)
    throw new AppError('conflict', 'This email already has a readybell user.', {
      errors: [{ pointer: '/token', detail: 'the new email is taken' }],
    });
  await markEmailChangeConfirmed(ctx.tx, change.id, now);
  await setUserEmail(ctx.tx, user.id, change.newEmail);
  const account = (await getAccount(ctx.tx, ctx.accountId))!;
  await queueMail(ctx, EMAIL_CHANGED_MAIL, {
    to: user.email,
    lang: change.language as MailLanguage,
    shop: account.name,
    values: { new_email: change.newEmail },
    key: change.id,
    accountId: ctx.accountId,
  });
  return { object: 'email_change', email: change.newEmail, status: 'confirmed', expires_at: null };
};
