// The SMTP side of the mail job: nodemailer, one transport per process, pointed at SMTP_URL.
// Timeouts are kept well inside the runner's 30 s job lease, so that a hung server fails the
// attempt (and it is retried) rather than outliving the lease, when another node would claim the
// job and send it a second time.
import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../core/config.ts';
import type { MailJobPayload } from './mail-job.ts';

export type MailTransport = { send(mail: MailJobPayload): Promise<void>; close(): void };

/** Why an attempt failed, without the server's words (which may name the recipient). */
export class SendFailure extends Error {
  /** The server refused this mail for good (5xx to the recipient or the message): no retry can help. */
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.permanent = permanent;
  }
}

export function smtpTransport(config: MailConfig): MailTransport | null {
  if (config.smtpUrl === null || config.from === null) return null;
  const smtpUrl = config.smtpUrl;
  // nodemailer is loaded with the first mail (0.1 s of CPU to import): a node that sends none,
  // or a process that never runs the mail job, does not pay for it at start.
  let transport: Transporter | null = null;
  const open = async (): Promise<Transporter> =>
    (transport ??= (await import('nodemailer')).default.createTransport({
      url: smtpUrl,
      connectionTimeout: 8_000,
      greetingTimeout: 8_000,
      socketTimeout: 10_000,
    }));
  const from = config.from;
  return {
    async send(mail) {
      const smtp = await open();
      try {
        await smtp.sendMail({
          from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.message_id,
          // RFC 3834: an automatic mail; auto-responders should not answer it.
          headers: { 'Auto-Submitted': 'auto-generated', 'Content-Language': mail.lang },
        });
      } catch (err) {
        const e = err as { code?: string; responseCode?: number; command?: string };
        const permanent = (e.code === 'EENVELOPE' || e.code === 'EMESSAGE') && typeof e.responseCode === 'number' && e.responseCode >= 500;
        const what = [e.code ?? 'error', e.command, e.responseCode].filter((x) => x !== undefined).join(' ');
        throw new SendFailure(`SMTP: ${what}`, permanent);
      }
    },
    close() {
      transport?.close();
    },
  };
}
