// Mail for the composition root: the `mail` job kind, sending through SMTP_URL (or logging links
// without it). The transport is closed with the app.
import type { Config } from '../core/config.ts';
import type { JobRegistry } from '../core/job-registry.ts';
import { MAIL_JOB } from './mail-job.ts';
import { mailTask } from './send-mail.ts';
import { smtpTransport } from './smtp.ts';

export function installMail(config: Config, tasks: JobRegistry): { close(): void } {
  const transport = smtpTransport(config.mail);
  tasks.set(MAIL_JOB, mailTask(transport));
  return { close: () => transport?.close() };
}
