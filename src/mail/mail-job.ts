// The `mail` job kind: one email, rendered when it was enqueued (queue-mail.ts) and sent by the
// handler in send-mail.ts. In the webhook lane: it waits on a server outside, as a delivery does,
// and rings must never wait behind it (decision 0048).
import { defineJobKind } from '../core/job-registry.ts';

export type MailJobPayload = {
  /** The kind's name (for the log and metrics; the text is already rendered). */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  lang: string;
  /** Message-ID, the same on every attempt, so a retry after an ambiguous failure is recognisable as the same mail. */
  message_id: string;
  /** The mail's link: what is logged instead when no SMTP server is configured. */
  link: string | null;
  /** After this (ms) the mail is no longer worth sending (its link has expired): the job gives up. */
  give_up_at: number;
};

export const MAIL_JOB = defineJobKind<MailJobPayload>('mail', 'webhook');
