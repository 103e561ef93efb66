// Enqueueing an email: the one call a verb makes (decision 0080). The mail is rendered now, in the
// verb's language and with the shop's name, and written as a job in the verb's own transaction, so
// it exists exactly when the change that causes it commits: a rolled-back sign-up sends nothing,
// and a committed one loses no mail to a crash (the job waits in the store for any node's runner).
import type { Services } from '../core/ctx.ts';
import type { Tx } from '../core/db.ts';
import type { Values } from '../i18n/messages.ts';
import { randomToken } from '../domain/ids.ts';
import { enqueueJob, newJob } from '../store/outbox.ts';
import type { MailKind, MailLanguage } from './mail-kind.ts';
import { renderMail } from './layout.ts';
import { MAIL_JOB, type MailJobPayload } from './mail-job.ts';

/**
 * How the mails of this node leave: `smtp`, or `log` when SMTP_URL is not set (the link is written
 * to the log for the operator). The same for every request, so an answer that says it reveals
 * nothing about whether an email is known.
 */
export type MailDelivery = 'smtp' | 'log';

export const mailDelivery = (services: Pick<Services, 'config'>): MailDelivery => (services.config.mail.smtpUrl === null ? 'log' : 'smtp');

/** A transaction to write in, with the services (a TxCtx is one). */
export type MailWriter = { services: Services; tx: Tx };

export type MailOrder<P extends Values> = {
  to: string;
  lang: MailLanguage;
  /** The shop's (account's) name, printed in the mail. */
  shop: string;
  values: P;
  /**
   * What makes this mail one mail: a second enqueue with the same key (a retried request) adds
   * nothing. Unique for the kind, e.g. the id of the token its link carries.
   */
  key: string;
  /** Whose mail it is, for the runner's fair shares; null before there is an account. */
  accountId: string | null;
};

/** Writes the mail's job in `w.tx`; the runner is woken after the commit. Answers how it will leave. */
export async function queueMail<P extends Values>(w: MailWriter, kind: MailKind<P>, order: MailOrder<P>): Promise<MailDelivery> {
  const { services, tx } = w;
  const now = services.clock.now();
  const content = kind.compose(order.lang, { ...order.values, shop: order.shop });
  const rendered = renderMail(order.lang, order.shop, content);
  const payload: MailJobPayload = {
    kind: kind.name,
    to: order.to,
    ...rendered,
    lang: order.lang,
    message_id: `<${randomToken(18)}.${kind.name}@${new URL(services.config.publicUrl).hostname}>`,
    link: content.action?.url ?? null,
    give_up_at: now + kind.sendWithinMs,
  };
  const owner = order.accountId === null ? undefined : { accountId: order.accountId };
  if (await enqueueJob(tx, newJob(MAIL_JOB, `mail:${kind.name}:${order.key}`, payload, now, now, owner)))
    tx.afterCommit(() => services.jobs.wake());
  return mailDelivery(services);
}
