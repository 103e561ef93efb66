// The mail module (decision 0080) against a local SMTP server: what arrives (plain text and HTML,
// the shop's name, the language, one Message-ID), that a mail is a job of its transaction (none for
// a rolled-back one), that an SMTP outage and a temporary refusal lose nothing and send nothing
// twice, that a refusal for good and a mail past its time end the job, and that without SMTP_URL
// the link is logged and the address is not.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';
import { FakeClock } from '../helpers/clock.ts';
import { configProblems } from '../helpers/config-problems.ts';
import { queueMail } from '../../src/mail/queue-mail.ts';
import { VERIFY_EMAIL_MAIL } from '../../src/mail/kinds/verify-email.ts';
import { RESET_PASSWORD_MAIL } from '../../src/mail/kinds/reset-password.ts';
import type { MailLanguage } from '../../src/mail/mail-kind.ts';

let smtp: LocalSmtp;
let t: TestApp;
const clock = new FakeClock();
let seq = 0;

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Readybell <noreply@pickup.example>' } });
});
after(async () => {
  await t?.close();
  await smtp?.close();
});

/** Enqueues a verify mail in a transaction of its own, as a verb would. */
async function enqueue(app: TestApp, to: string, opts: { lang?: MailLanguage; shop?: string; fail?: boolean } = {}): Promise<string> {
  const key = `test-${++seq}`;
  const link = `http://localhost:3000/staff/verify#token=${key}`;
  const write = app.app.services.db.write(async (tx) => {
    await queueMail({ services: app.app.services, tx }, VERIFY_EMAIL_MAIL, {
      to,
      lang: opts.lang ?? 'en',
      shop: opts.shop ?? 'Café Olé',
      values: { link },
      key,
      accountId: null,
    });
    if (opts.fail === true) throw new Error('the verb failed after enqueueing');
  });
  if (opts.fail === true) await assert.rejects(write);
  else await write;
  return link;
}

test('a mail arrives as plain text and HTML, in its language, with the shop name, the link and a Message-ID', async () => {
  const before = smtp.received.length;
  const link = await enqueue(t, 'owner-en@example.test', { shop: `Joe's <Café>` });
  const frLink = await enqueue(t, 'owner-fr@example.test', { lang: 'fr', shop: 'Chez Paul' });
  assert.equal(await t.app.runner.runOnce(), 2);
  await smtp.waitFor(before + 2);
  const en = smtp.only('owner-en@example.test');
  assert.equal(en.subject, `Confirm your email address for Joe's <Café>`);
  assert.deepEqual(
    en.from?.value.map((a) => [a.name, a.address]),
    [['Readybell', 'noreply@pickup.example']],
  );
  assert.match(en.text ?? '', /Joe's <Café> cannot create live API keys/);
  assert.equal(smtp.linkIn(en, 'http://localhost:3000/staff/verify'), link);
  // The HTML escapes the shop's name and carries the same link as a button.
  assert.ok(typeof en.html === 'string');
  assert.match(en.html, /Joe&#39;s &lt;Café&gt;/);
  assert.doesNotMatch(en.html, /<Café>/);
  assert.match(en.html, new RegExp(`href="${link.replace(/[.?#]/g, '\\$&')}"`));
  assert.match(en.messageId ?? '', /^<[\w-]+\.verify-email@localhost>$/);
  assert.equal(en.headers.get('auto-submitted'), 'auto-generated');
  const fr = smtp.only('owner-fr@example.test');
  assert.equal(fr.subject, 'Confirmez votre adresse e-mail pour Chez Paul');
  assert.match(fr.text ?? '', /Le lien fonctionne une seule fois/);
  assert.equal(smtp.linkIn(fr, 'http://localhost:3000/'), frLink);
  assert.equal(fr.headers.get('content-language'), 'fr');
});

test('a mail is written with the change that causes it: a rolled-back transaction sends nothing', async () => {
  const before = smtp.received.length;
  await enqueue(t, 'rolled-back@example.test', { fail: true });
  assert.equal(await t.app.runner.runOnce(), 0);
  assert.equal(smtp.received.length, before);
});

test('an SMTP outage, then recovery: every mail arrives exactly once, and the sent mail is erased from the job', async () => {
  const before = smtp.received.length;
  await smtp.stop();
  await enqueue(t, 'outage-1@example.test');
  await enqueue(t, 'outage-2@example.test', { lang: 'de' });
  assert.equal(await t.app.runner.runOnce(), 2, 'both attempted while the server is down');
  assert.equal(await t.app.runner.runOnce(), 0, 'not again before the backoff');
  clock.advance(5_000);
  assert.equal(await t.app.runner.runOnce(), 2, 'tried again after 5 s, still down');
  await smtp.start();
  clock.advance(30_000);
  assert.equal(await t.app.runner.runOnce(), 2);
  await smtp.waitFor(before + 2);
  clock.advance(3_600_000);
  assert.equal(await t.app.runner.runOnce(), 0, 'nothing left to send');
  assert.equal(smtp.only('outage-1@example.test').subject, 'Confirm your email address for Café Olé');
  assert.equal(smtp.only('outage-2@example.test').subject, 'Bestätigen Sie Ihre E-Mail-Adresse für Café Olé');
  assert.equal(smtp.received.length, before + 2);
  const rows = await t.app.services.db.query<{ payload: string; done_at: number | null }>(
    "SELECT payload, done_at FROM jobs WHERE kind = 'mail' AND done_at IS NOT NULL",
  );
  assert.ok(rows.length >= 2);
  for (const r of rows) assert.doesNotMatch(r.payload, /@example\.test|token=/, 'no address or link kept once sent');
});

test('a temporary refusal (451) is retried; a refusal for good (550) is not', async () => {
  const before = smtp.received.length;
  smtp.refuseNext(451);
  await enqueue(t, 'greylisted@example.test');
  assert.equal(await t.app.runner.runOnce(), 1);
  assert.equal(smtp.received.length, before);
  clock.advance(5_000);
  assert.equal(await t.app.runner.runOnce(), 1);
  await smtp.waitFor(before + 1);
  assert.equal(smtp.only('greylisted@example.test').subject, 'Confirm your email address for Café Olé');

  smtp.refuseNext(550);
  await enqueue(t, 'no-such-mailbox@example.test');
  assert.equal(await t.app.runner.runOnce(), 1);
  clock.advance(3_600_000);
  assert.equal(await t.app.runner.runOnce(), 0, 'a 550 ends the job');
  assert.equal(smtp.received.filter((m) => m.envelopeTo.includes('no-such-mailbox@example.test')).length, 0);
});

test('a mail not sent before its link would expire is given up', async () => {
  const before = smtp.received.length;
  await smtp.stop();
  await t.app.services.db.write((tx) =>
    queueMail({ services: t.app.services, tx }, RESET_PASSWORD_MAIL, {
      to: 'late@example.test',
      lang: 'en',
      shop: 'Café Olé',
      values: { link: 'http://localhost:3000/staff/reset#token=late' },
      key: 'late',
      accountId: null,
    }),
  );
  assert.equal(await t.app.runner.runOnce(), 1);
  await smtp.start();
  clock.advance(3_600_001);
  assert.equal(await t.app.runner.runOnce(), 1, 'claimed once more, and given up');
  clock.advance(3_600_000);
  assert.equal(await t.app.runner.runOnce(), 0);
  assert.equal(smtp.received.length, before);
});

test('without SMTP_URL the link is written to the log, and the address is not', async () => {
  const lines: string[] = [];
  const bare = await startTestApp({ env: { LOG_LEVEL: 'info' }, logDestination: { write: (line: string) => void lines.push(line) } });
  try {
    const link = await enqueue(bare, 'not-logged@example.test');
    assert.equal(await bare.app.runner.runOnce(), 1);
    const entry = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.mail === 'verify-email');
    assert.ok(entry, 'a log line for the mail');
    assert.equal(entry.link, link);
    assert.match(String(entry.msg), /SMTP_URL is not set/);
    assert.ok(!lines.some((l) => l.includes('not-logged@example.test')), 'the address is in no log line');
    assert.equal(await bare.app.runner.runOnce(), 0);
  } finally {
    await bare.close();
  }
});

test('SMTP_URL and MAIL_FROM are checked at start, each problem naming its variable', () => {
  assert.deepEqual(configProblems({ SMTP_URL: 'smtp://mail.example.com:587', MAIL_FROM: 'Shop <noreply@example.com>' }), []);
  assert.deepEqual(configProblems({ MAIL_FROM: 'noreply@example.com' }), []);
  const noFrom = configProblems({ SMTP_URL: 'smtps://u:secret@mail.example.com' });
  assert.equal(noFrom.length, 1);
  assert.match(noFrom[0]!, /^MAIL_FROM is needed with SMTP_URL/);
  const badUrl = configProblems({ SMTP_URL: 'http://u:secret@mail.example.com', MAIL_FROM: 'a@example.com' });
  assert.equal(badUrl.length, 1);
  assert.match(badUrl[0]!, /^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/);
  assert.doesNotMatch(badUrl[0]!, /secret/, 'the password is not repeated');
  assert.match(configProblems({ MAIL_FROM: 'two@example.com, three@example.com' })[0] ?? '', /^MAIL_FROM must be one address/);
});
