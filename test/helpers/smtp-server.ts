// A local SMTP server for the mail tests (smtp-server), keeping every mail it accepts parsed
// (mailparser), so a test reads what a person would receive. `stop()` and `start()` on the same
// port play an outage and its end; `refuseNext` answers the next mails with a temporary or
// permanent refusal. Plain SMTP on loopback, no STARTTLS, no AUTH.
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { eventually } from './eventually.ts';

export type ReceivedMail = ParsedMail & { envelopeTo: string[] };

export type LocalSmtp = {
  port: number;
  /** SMTP_URL for the app under test. */
  url: string;
  received: ReceivedMail[];
  /** The next `count` messages get this SMTP reply code after their data (e.g. 451, 550). */
  refuseNext(code: number, count?: number): void;
  /** Waits until `n` mails have arrived (at most a few seconds). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** The only mail to `to` so far; fails if there is none or more than one. */
  only(to: string): ReceivedMail;
  /** The first https?:// link in a mail's text that starts with `prefix`. */
  linkIn(mail: ReceivedMail, prefix: string): string;
  /** Stops listening (an outage); `start()` listens on the same port again. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
};

export async function startSmtpServer(): Promise<LocalSmtp> {
  const received: ReceivedMail[] = [];
  let refusals: number[] = [];
  const make = (): SMTPServer =>
    new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream).then(
          (mail) => {
            const code = refusals.shift();
            if (code !== undefined) {
              const err = new Error(code >= 500 ? 'refused for good' : 'try again later') as Error & { responseCode: number };
              err.responseCode = code;
              callback(err);
              return;
            }
            received.push(Object.assign(mail, { envelopeTo: session.envelope.rcptTo.map((r) => r.address) }));
            callback();
          },
          (err: Error) => callback(err),
        );
      },
    });
  let server = make();
  let port = 0;
  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.server.address() as { port: number }).port;
        resolve();
      });
    });
  let listening = false;
  const stop = async (): Promise<void> => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  await listen();
  listening = true;
  const smtp: LocalSmtp = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseNext(code, count = 1) {
      refusals = [...refusals, ...Array.from({ length: count }, () => code)];
    },
    async waitFor(n, timeoutMs = 5000) {
      await eventually(() => received.length >= n, `${n} mails at the local SMTP server (have ${received.length})`, timeoutMs);
      return received;
    },
    only(to) {
      const mails = received.filter((m) => m.envelopeTo.includes(to));
      if (mails.length !== 1) throw new Error(`expected one mail to ${to}, found ${mails.length}`);
      return mails[0]!;
    },
    linkIn(mail, prefix) {
      const link = (mail.text ?? '').split(/\s+/).find((w) => w.startsWith(prefix));
      if (link === undefined) throw new Error(`no link starting ${prefix} in "${mail.subject}"`);
      return link;
    },
    stop,
    async start() {
      if (listening) return;
      server = make();
      await listen();
      listening = true;
    },
    close: stop,
  };
  return smtp;
}
