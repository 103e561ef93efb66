// Forgot / reset password (decision 0081) against a local SMTP server: the same answer whether or
// not the email is known; the emailed link works once, within the hour, sets the new password and
// ends every session of the user; requests are throttled per address and per target email.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';
import { FakeClock } from '../helpers/clock.ts';
import { eventually } from '../helpers/eventually.ts';
import { asSession, signIn, signInOk } from '../helpers/session.ts';

let smtp: LocalSmtp;
let t: TestApp;
const clock = new FakeClock();
const NEW_PASSWORD = 'my brand new passphrase';

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'noreply@pickup.example', TRUST_PROXY: 'true' } });
});
after(async () => {
  await t?.close();
  await smtp?.close();
});

const from = (n: number) => ({ 'x-forwarded-for': `10.1.${Math.floor(n / 256)}.${n % 256}` });

const forgot = (email: string, ip = 1, language?: string) =>
  t.request('POST', '/v1/password_resets', { key: null, body: { email, ...(language ? { language } : {}) }, headers: from(ip) });

const complete = (token: string, password = NEW_PASSWORD, ip = 1) =>
  t.request('POST', '/v1/password_resets/complete', { key: null, body: { token, password }, headers: from(ip) });

async function mailsTo(to: string, n: number) {
  await t.app.runner.runOnce();
  const mine = () => smtp.received.filter((m) => m.envelopeTo.includes(to));
  await eventually(() => mine().length >= n, `${n} mails to ${to}`);
  return mine();
}

const tokenIn = (mail: Parameters<LocalSmtp['linkIn']>[0]): string => {
  const link = smtp.linkIn(mail, 'http://localhost:3000/staff/#/reset/');
  return link.slice(link.lastIndexOf('/') + 1);
};

test('the same answer for a known and an unknown email; only the known one is sent a link', async () => {
  const owner = await t.newTenant();
  const known = await forgot(owner.ownerEmail.toUpperCase(), 2);
  const unknown = await forgot('nobody-here@example.test', 3);
  assert.equal(known.status, 202);
  assert.equal(unknown.status, 202);
  assert.deepEqual(Object.keys(known.body).sort(), Object.keys(unknown.body).sort());
  assert.equal(known.body.email_delivery, unknown.body.email_delivery);
  assert.deepEqual({ ...known.body, email: '' }, { ...unknown.body, email: '' });
  const [mail] = await mailsTo(owner.ownerEmail, 1);
  assert.match(mail!.subject ?? '', /^Reset your readybell password for Test \d+$/);
  assert.match(mail!.text ?? '', /The link works once, within one hour/);
  assert.match(tokenIn(mail!), /^[A-Za-z0-9_-]{43}$/);
  await t.app.runner.runOnce();
  assert.equal(smtp.received.filter((m) => m.envelopeTo.includes('nobody-here@example.test')).length, 0);
});

test('the link sets a new password once and ends every session of the user', async () => {
  const owner = await t.newTenant();
  const tablet = await signInOk(t, owner.ownerEmail, owner.ownerPassword);
  const phone = await signInOk(t, owner.ownerEmail, owner.ownerPassword);
  assert.equal((await forgot(owner.ownerEmail, 10, 'es')).status, 202);
  assert.equal((await forgot(owner.ownerEmail, 11)).status, 202);
  const mails = await mailsTo(owner.ownerEmail, 2);
  assert.equal(mails[0]!.subject?.startsWith('Restablezca su contraseña de readybell'), true);

  const weak = await complete(tokenIn(mails[0]!), 'password123', 12);
  assert.equal(weak.status, 422);
  assert.equal(weak.body.errors[0].pointer, '/password');

  const done = await complete(tokenIn(mails[0]!), NEW_PASSWORD, 12);
  assert.equal(done.status, 200, done.text);
  assert.deepEqual(done.body, { object: 'password_reset', completed: true });
  for (const s of [tablet, phone]) assert.equal((await asSession(t, s)('GET', '/v1/session')).status, 401, 'every session ended');
  assert.equal((await signIn(t, owner.ownerEmail, owner.ownerPassword)).status, 401, 'the old password no longer works');
  const fresh = await signInOk(t, owner.ownerEmail, NEW_PASSWORD);
  assert.equal(fresh.body.user.email_verified, true);

  const reused = await complete(tokenIn(mails[0]!), 'yet another passphrase', 12);
  assert.equal(reused.status, 422, 'the link works once');
  assert.equal(reused.body.errors[0].pointer, '/token');
  const other = await complete(tokenIn(mails[1]!), 'yet another passphrase', 12);
  assert.equal(other.status, 422, "a reset spends the user's other reset links");
});

test('a reset link expires after an hour', async () => {
  const owner = await t.newTenant();
  assert.equal((await forgot(owner.ownerEmail, 20)).status, 202);
  const [mail] = await mailsTo(owner.ownerEmail, 1);
  clock.advance(3_600_000 + 1);
  const late = await complete(tokenIn(mail!), NEW_PASSWORD, 20);
  assert.equal(late.status, 422);
  assert.match(late.body.detail, /expired or has already been used/);
  assert.equal((await signIn(t, owner.ownerEmail, owner.ownerPassword)).status, 201, 'the password is unchanged');
});

test('requests are throttled per target email and per address, whether or not the email is known', async () => {
  const owner = await t.newTenant();
  for (const email of [owner.ownerEmail, 'ghost@example.test']) {
    for (let i = 0; i < 3; i++) assert.equal((await forgot(email, 30 + i)).status, 202);
    const bomb = await forgot(email, 40);
    assert.equal(bomb.status, 429, `${email}: ${bomb.text}`);
    assert.deepEqual(bomb.body.violated_policies, ['password-reset-email']);
  }
  let last = 0;
  for (let i = 0; i < 45 && last !== 429; i++) last = (await forgot(`spray${i}@example.test`, 50)).status;
  assert.equal(last, 429, 'one address is stopped after its burst');
  await t.app.runner.runOnce();
  assert.ok(smtp.received.filter((m) => m.envelopeTo.includes(owner.ownerEmail)).length <= 3, 'no more than three mails reached the inbox');
});
