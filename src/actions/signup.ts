// Sign-up (decision 0081): a shop creates its account, first branch and queue, and its owner, and
// is sent a link to verify the owner's address. The answer is the same whether or not the email is
// known: a known one is sent a mail ("your address already has an account") instead of an error,
// and both paths hash the password first. The account's rows come from the operator's provisioning
// code (provision.ts), as `readybell accounts create` and `users create` make them.
import type { Services } from '../core/ctx.ts';
import type { PublicAction } from '../core/public-action.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { hashPassword } from '../domain/password-hash.ts';
import { passwordProblem } from '../domain/password-policy.ts';
import { isValidTimeZone } from '../domain/local-time.ts';
import { findUserByEmail } from '../store/credentials.ts';
import { getAccount, hasAnyAccount } from '../store/tenancy.ts';
import { claimFirstOwner } from '../store/email-links.ts';
import { startSignupTrial } from '../store/billing.ts';
import { mailDelivery, queueMail, type MailDelivery } from '../mail/queue-mail.ts';
import type { MailLanguage } from '../mail/mail-kind.ts';
import { SIGNUP_EXISTING_MAIL } from '../mail/kinds/signup-existing.ts';
import { createAccount, createBranch, createUser } from './provision.ts';
import { sendEmailLink } from './email-links.ts';

const DAY_MS = 86_400_000;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export type SignupSettings = {
  /** Whether this instance takes a sign-up now. */
  open: boolean;
  mode: Services['config']['signup']['mode'];
  plan: 'free' | 'pro';
  trialDays: number;
  emailDelivery: MailDelivery;
};

/** What the sign-up screen needs to know before it shows itself. */
export async function signupSettings(services: Services): Promise<SignupSettings> {
  const { mode, trialDays } = services.config.signup;
  const open = mode === 'open' || (mode === 'first-owner' && !(await hasAnyAccount(services.db)));
  return { open, mode, plan: trialDays > 0 ? 'pro' : 'free', trialDays, emailDelivery: mailDelivery(services) };
}

export type SignupRequest = { email: string; password: string; shop_name: string; timezone: string; lang: MailLanguage };
export type SignupInput = Omit<SignupRequest, 'password'> & { passwordHash: string };

/**
 * The checks that need no store, and the password's hash, before the transaction (an argon2id
 * hash takes tens of milliseconds, which no transaction should hold). Refusals point at a field.
 */
export async function prepareSignup(services: Services, req: SignupRequest): Promise<SignupInput> {
  if (services.config.signup.mode === 'off') throw closed();
  const email = req.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw invalid('/email', 'Enter an email address such as owner@example.com.');
  const shop = req.shop_name.trim();
  if (shop === '') throw invalid('/shop_name', "Enter the shop's name.");
  if (!isValidTimeZone(req.timezone)) throw invalid('/timezone', `"${req.timezone}" is not a time zone such as Europe/Paris.`);
  const weak = passwordProblem(req.password, [email, shop]);
  if (weak !== null) throw invalid('/password', weak);
  return { email, shop_name: shop, timezone: req.timezone, lang: req.lang, passwordHash: await hashPassword(req.password) };
}

const closed = (): AppError => new AppError('forbidden', 'Sign-up is closed on this readybell: ask its operator for an account.');

export const signUp: PublicAction<SignupInput, { emailDelivery: MailDelivery }> = async ({ ctx, input }) => {
  const { services, tx } = ctx;
  const { mode, trialDays } = services.config.signup;
  const now = services.clock.now();
  if (mode === 'off' || (mode === 'first-owner' && !(await claimFirstOwner(tx, now)))) throw closed();
  const known = await findUserByEmail(tx, input.email);
  if (known !== undefined) {
    // No error, no hint: the owner of the address is told instead, unless the user was removed.
    if (known.removedAt === null) {
      const account = await getAccount(tx, known.accountId);
      await queueMail(ctx, SIGNUP_EXISTING_MAIL, {
        to: known.email,
        lang: input.lang,
        shop: account?.name ?? input.shop_name,
        values: { link: `${services.config.publicUrl}/staff/` },
        key: `${known.id}:${now}`,
        accountId: known.accountId,
      });
    }
    return { emailDelivery: mailDelivery(services) };
  }
  const account = await createAccount(tx, { name: input.shop_name, plan: trialDays > 0 ? 'pro' : 'free' }, now);
  if (trialDays > 0) {
    // Its end is written now with it (decision 0084): the "3 days left" mail and the fall back to free.
    await startSignupTrial(tx, account.id, now + trialDays * DAY_MS, now);
    tx.afterCommit(() => services.jobs.wake());
  }
  await createBranch(tx, { accountId: account.id, name: input.shop_name, timezone: input.timezone }, now);
  const owner = await createUser(
    tx,
    { accountId: account.id, email: input.email, role: 'owner', passwordHash: input.passwordHash, emailVerified: false },
    now,
  );
  const emailDelivery = await sendEmailLink(ctx, 'verify-email', {
    userId: owner.id,
    email: owner.email,
    accountId: account.id,
    shop: account.name,
    lang: input.lang,
  });
  return { emailDelivery };
};
