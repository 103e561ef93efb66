// The mail part of the configuration (SMTP_URL, MAIL_FROM; decision 0080), parsed by loadConfig and
// checked once at start: a half-configured mailer stops the process with a message naming the
// variable instead of losing the first owner's verification mail.
import type { MailConfig } from '../core/config.ts';

type Get = (name: string) => string | undefined;

// "Name <address>" or a bare address; one address, no list.
const FROM = /^(?:[^<>\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/;

export function loadMailConfig(get: Get, problems: string[]): MailConfig {
  const smtpUrl = get('SMTP_URL') ?? null;
  const from = get('MAIL_FROM') ?? null;
  if (smtpUrl !== null) {
    let ok = false;
    try {
      const u = new URL(smtpUrl);
      ok = (u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname !== '';
    } catch {}
    // Never the URL itself in the message: it may hold the SMTP password.
    if (!ok) problems.push('SMTP_URL must be an smtp:// or smtps:// URL such as smtps://user:password@smtp.example.com:465');
    if (from === null)
      problems.push('MAIL_FROM is needed with SMTP_URL: the sender of every email, e.g. "Readybell <noreply@example.com>"');
  }
  if (from !== null && !FROM.test(from)) problems.push(`MAIL_FROM must be one address, bare or as "Name <address>" (got "${from}")`);
  return { smtpUrl, from };
}
