// The `mail` job's handler (decision 0080): sends one rendered mail through SMTP, or, with no
// SMTP_URL, writes its link to the log. A failure the server may get over (unreachable, a 4xx, a
// timeout) is thrown, and the runner tries again with its backoff (5 s, 30 s, 2 min, 10 min, then
// every 30 min) until the mail's give-up time; a refusal for good (5xx to the recipient or the
// message) ends the job. The job is finished, and its payload erased, in one write after the send.
// A node that dies between the server's acceptance and that write leaves the job to be claimed
// again and sent a second time with the same Message-ID, which receiving systems and mail
// clients recognise as the same message; that window (one SMTP reply) is the only one.
import type { JobHandler } from '../core/job-registry.ts';
import { finishMailJob } from '../store/mail-jobs.ts';
import type { MailJobPayload } from './mail-job.ts';
import { SendFailure, type MailTransport } from './smtp.ts';

export function mailTask(transport: MailTransport | null): JobHandler<MailJobPayload> {
  return async (services, mail, job) => {
    const { db, clock, log } = services;
    const done = async (outcome: string | null) => {
      await finishMailJob(db, job.id, mail.kind, clock.now(), outcome);
      return { settled: true };
    };
    // Never the address in the log: the kind, the account and the Message-ID find the mail.
    const about = { mail: mail.kind, account_id: job.accountId, message_id: mail.message_id };
    if (clock.now() > mail.give_up_at) {
      log.warn({ ...about, attempts: job.attempts }, 'mail not sent in time; given up (its link would have expired)');
      return done('given up: not sent in time');
    }
    if (transport === null) {
      // The operator's way to pass the link on (a self-hosted first owner): the link, no address.
      log.info({ ...about, link: mail.link }, 'SMTP_URL is not set: mail not sent; its link is here instead');
      return done('not sent: SMTP_URL is not set (link logged)');
    }
    try {
      await transport.send(mail);
    } catch (err) {
      if (err instanceof SendFailure && err.permanent) {
        log.warn({ ...about, err: err.message }, 'mail refused by the SMTP server; not retried');
        return done(err.message);
      }
      throw err;
    }
    return done(null);
  };
}
