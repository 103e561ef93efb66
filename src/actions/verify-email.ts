// Verifying an address (decision 0081): the link from the verification mail, once, signs its user
// in and marks the address verified, which live API keys wait for. A shop that has just signed up
// gets its test key here, shown once on the first-run checklist: the sign-up's answer cannot show
// it, as that answer must be the same for a known email. A signed-in user whose address is not
// verified yet may ask for a new link.
import type { Action } from '../core/ctx.ts';
import type { PublicAction } from '../core/public-action.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { hashEmailLinkToken } from '../domain/email-link-token.ts';
import { getUser, listApiKeys } from '../store/credentials.ts';
import { getAccount, listBranches } from '../store/tenancy.ts';
import { isEmailVerified, markEmailVerified, spendEmailLink } from '../store/email-links.ts';
import type { MailDelivery } from '../mail/queue-mail.ts';
import type { MailLanguage } from '../mail/mail-kind.ts';
import { createApiKey } from './provision.ts';
import { sendEmailLink } from './email-links.ts';
import { startSession } from './staff-session.ts';

export const LINK_REFUSED = 'This link has expired or has already been used.';

export type Verified = { token: string; sessionId: string; testKey: string | null };

export const verifyEmail: PublicAction<{ token: string }, Verified> = async ({ ctx, input }) => {
  const { tx, services } = ctx;
  const now = services.clock.now();
  const link = await spendEmailLink(tx, 'verify-email', hashEmailLinkToken(input.token), now);
  const user = link && (await getUser(tx, link.userId));
  // A link to an address the user no longer has proves nothing about the one they have.
  if (link === undefined || user === undefined || user.removedAt !== null || user.email !== link.email)
    throw invalid('/token', LINK_REFUSED);
  await markEmailVerified(tx, user.id, now);
  const branch = (await listBranches(tx, user.accountId))[0];
  if (branch === undefined) throw invalid('/token', LINK_REFUSED);
  const first = user.role === 'owner' && (await listApiKeys(tx, branch.id)).length === 0;
  const testKey = first ? (await createApiKey(tx, { branchId: branch.id, mode: 'test', name: 'first test key' }, now)).key : null;
  const session = await startSession(tx, user, branch.id, now);
  return { ...session, testKey };
};

/** A new verification link for the signed-in user; refused once the address is verified. */
export const sendVerificationEmail: Action<
  { lang: MailLanguage },
  { object: 'verification_email'; email_delivery: MailDelivery }
> = async ({ ctx, input }) => {
  if (ctx.actor.kind !== 'user')
    throw new AppError('forbidden', 'Only a signed-in staff user has an email address to verify; API keys do not.');
  const user = await getUser(ctx.tx, ctx.actor.userId);
  if (user === undefined) throw new AppError('forbidden', 'This user no longer exists.');
  if (await isEmailVerified(ctx.tx, user.id)) throw new AppError('conflict', 'Your email address is already verified.');
  const account = await getAccount(ctx.tx, user.accountId);
  const delivery = await sendEmailLink(ctx, 'verify-email', {
    userId: user.id,
    email: user.email,
    accountId: user.accountId,
    shop: account?.name ?? '',
    lang: input.lang,
  });
  return { object: 'verification_email', email_delivery: delivery };
};
