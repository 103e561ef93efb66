// The mails of invitations, email changes and account deletion (decisions 0082, 0083), described
// once: what each says is the mail module's template of its kind, in the language named here.
// They are queued in the transaction that makes their link, so a link exists only with its mail.
import type { TxCtx } from '../core/ctx.ts';

export const MAIL_LANGUAGES = ['en', 'fr', 'es', 'de'] as const;
export type MailLanguage = (typeof MAIL_LANGUAGES)[number];

export type AccountMail =
  | { kind: 'invitation'; to: string; language: MailLanguage; shop: string; role: string; link: string; expiresAt: number }
  | { kind: 'email-change-confirm'; to: string; language: MailLanguage; shop: string; link: string; expiresAt: number }
  | { kind: 'email-changed'; to: string; language: MailLanguage; shop: string; newEmail: string }
  | { kind: 'account-deletion'; to: string; language: MailLanguage; shop: string; eraseAt: number; link: string };

/** The staff page's address of a link with its token in the fragment, which browsers never send to a server or a log. */
export const staffLink = (ctx: { services: TxCtx['services'] }, screen: string, token: string): string =>
  `${ctx.services.config.publicUrl.replace(/\/$/, '')}/staff/${screen}#${token}`;

/** Queues the mail with the write that makes it. */
export async function queueAccountMail(ctx: TxCtx, mail: AccountMail): Promise<void> {
  // Until the mail module is merged: what it would send, in the log, as it does without SMTP.
  ctx.services.log.info({ mail: mail.kind, language: mail.language }, `mail ${mail.kind}: ${'link' in mail ? mail.link : ''}`);
}
