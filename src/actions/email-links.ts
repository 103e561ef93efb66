// Sending a single-use link by email (decision 0081): the link's row, kept as the hash of its
// token, and its mail, in the caller's transaction. The token itself exists only in the mail.
import type { Services } from '../core/ctx.ts';
import type { Tx } from '../core/db.ts';
import { newId } from '../domain/ids.ts';
import { hashEmailLinkToken, newEmailLinkToken } from '../domain/email-link-token.ts';
import { insertEmailLink, type EmailLinkPurpose } from '../store/email-links.ts';
import { queueMail, type MailDelivery } from '../mail/queue-mail.ts';
import type { MailLanguage } from '../mail/mail-kind.ts';
import { VERIFY_EMAIL_MAIL } from '../mail/kinds/verify-email.ts';
import { RESET_PASSWORD_MAIL } from '../mail/kinds/reset-password.ts';

/** How long each link works, and the staff page's screen that takes it. */
export const EMAIL_LINKS = {
  'verify-email': { validForMs: 7 * 86_400_000, screen: 'verify', mail: VERIFY_EMAIL_MAIL },
  'reset-password': { validForMs: 3_600_000, screen: 'reset', mail: RESET_PASSWORD_MAIL },
} as const;

/** The staff page's address for a link: the token after `#`, so it never reaches a server's log or a Referer. */
export const linkUrl = (services: Services, purpose: EmailLinkPurpose, token: string): string =>
  `${services.config.publicUrl}/staff/#/${EMAIL_LINKS[purpose].screen}/${token}`;

export async function sendEmailLink(
  w: { services: Services; tx: Tx },
  purpose: EmailLinkPurpose,
  to: { userId: string; email: string; accountId: string; shop: string; lang: MailLanguage },
): Promise<MailDelivery> {
  const now = w.services.clock.now();
  const token = newEmailLinkToken();
  const id = newId('emailLink', now);
  const spec = EMAIL_LINKS[purpose];
  await insertEmailLink(w.tx, {
    id,
    purpose,
    userId: to.userId,
    email: to.email,
    tokenHash: hashEmailLinkToken(token),
    createdAt: now,
    expiresAt: now + spec.validForMs,
    usedAt: null,
  });
  return queueMail(w, spec.mail, {
    to: to.email,
    lang: to.lang,
    shop: to.shop,
    values: { link: linkUrl(w.services, purpose, token) },
    key: id,
    accountId: to.accountId,
  });
}
