// A forgotten password (decision 0081): asking sends a single-use link, valid for an hour, to the
// address if it is a user's, and the answer is the same either way; following it sets a new
// password, ends every session of the user, spends the user's other reset links, and verifies the
// address (the link proved the mailbox).
import type { PublicAction } from '../core/public-action.ts';
import { invalid } from '../domain/errors.ts';
import { hashEmailLinkToken } from '../domain/email-link-token.ts';
import { hashPassword } from '../domain/password-hash.ts';
import { passwordProblem } from '../domain/password-policy.ts';
import { findUserByEmail, getUser, setUserPassword } from '../store/credentials.ts';
import { getAccount } from '../store/tenancy.ts';
import { revokeUserSessions } from '../store/sessions.ts';
import { markEmailVerified, spendEmailLink, spendUserLinks } from '../store/email-links.ts';
import { mailDelivery, type MailDelivery } from '../mail/queue-mail.ts';
import type { MailLanguage } from '../mail/mail-kind.ts';
import { sendEmailLink } from './email-links.ts';
import { LINK_REFUSED } from './verify-email.ts';

export const requestPasswordReset: PublicAction<{ email: string; lang: MailLanguage }, MailDelivery> = async ({ ctx, input }) => {
  const user = await findUserByEmail(ctx.tx, input.email.trim().toLowerCase());
  if (user !== undefined && user.removedAt === null) {
    const account = await getAccount(ctx.tx, user.accountId);
    await sendEmailLink(ctx, 'reset-password', {
      userId: user.id,
      email: user.email,
      accountId: user.accountId,
      shop: account?.name ?? '',
      lang: input.lang,
    });
  }
  return mailDelivery(ctx.services);
};

/** The new password checked and hashed before the transaction (the hash takes tens of milliseconds). */
export async function prepareNewPassword(password: string): Promise<string> {
  const weak = passwordProblem(password);
  if (weak !== null) throw invalid('/password', weak);
  return hashPassword(password);
}

export const resetPassword: PublicAction<{ token: string; passwordHash: string }, { sessionsEnded: number }> = async ({ ctx, input }) => {
  const { tx, services } = ctx;
  const now = services.clock.now();
  const link = await spendEmailLink(tx, 'reset-password', hashEmailLinkToken(input.token), now);
  const user = link && (await getUser(tx, link.userId));
  if (link === undefined || user === undefined || user.removedAt !== null || user.email !== link.email)
    throw invalid('/token', LINK_REFUSED);
  await setUserPassword(tx, user.id, input.passwordHash);
  const sessionsEnded = await revokeUserSessions(tx, user.id, now);
  await spendUserLinks(tx, user.id, 'reset-password', now);
  await markEmailVerified(tx, user.id, now);
  return { sessionsEnded };
};
