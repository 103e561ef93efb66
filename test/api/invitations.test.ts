// Invitations by email and the email change (decision 0082), against a local SMTP server: what the
// invitee receives, that its link works once and not after it expired, was revoked or was replaced
// by a resend; that an inbox cannot be bombed; that a new email is confirmed on the new address
// before it counts, and that the old address is then told.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtpServer, type LocalSmtp, type ReceivedMail } from '../helpers/smtp-server.ts';
import { FakeClock } from '../helpers/clock.ts';
import { asSession, signIn, signInOk } from '../helpers/session.ts';

let smtp: LocalSmtp;
let t: TestApp;
const clock = new FakeClock(Date.now());
let seq = 0;

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Readybell <noreply@pickup.example>' } });
});
after(async () => {
  await t?.close();
  await smtp?.close();
});

const email = (what: string): string => `${what}-${++seq}@example.test`;

/** Sends the mails waiting as jobs and answers the one that reached `to`. */
async function mailTo(to: string): Promise<ReceivedMail> {
  await t.app.runner.runOnce();
  await smtp.waitFor(smtp.received.filter((m) => !m.envelopeTo.includes(to)).length + 1);
  return smtp.only(to);
}
const tokenOf = (mail: ReceivedMail, screen: string): string => smtp.linkIn(mail, `http://localhost:3000/staff/${screen}#`).split('#')[1]!;

async function owner() {
  return asSession(t, await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword));
}

const accept = (token: string, password = 'my own passphrase') =>
  t.request('POST', '/v1/invitations/accept', { key: null, body: { token, password } });

test('an invitee receives the link, chooses their own password with it and signs in; the link works once', async () => {
  const as = await owner();
  const to = email('sam');
  const created = await as('POST', '/v1/invitations', { body: { email: to, role: 'manager', language: 'fr' } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.status, 'pending');
  assert.doesNotMatch(created.text, /token|password/, 'the link goes by mail only');
  const mail = await mailTo(to);
  assert.match(mail.subject ?? '', /^Vous êtes invité chez Test \d+ sur readybell$/);
  assert.match(mail.text ?? '', /Vous serez responsable/);
  const token = tokenOf(mail, 'invitation');
  assert.equal((await accept(token, 'short')).status, 422, 'a password of fewer than 10 characters');
  const accepted = await accept(token);
  assert.equal(accepted.status, 201, accepted.text);
  assert.deepEqual(accepted.body, { object: 'invitation_acceptance', email: to, role: 'manager' });
  const signed = await signInOk(t, to, 'my own passphrase');
  assert.equal(signed.body.user.role, 'manager');
  const again = await accept(token, 'another passphrase');
  assert.equal(again.status, 422);
  assert.equal(again.body.errors[0].pointer, '/token');
  const users = await as('GET', '/v1/users');
  assert.ok(users.body.data.some((u: { email: string }) => u.email === to));
  const open = await as('GET', '/v1/invitations');
  assert.ok(!open.body.data.some((i: { email: string }) => i.email === to), 'an accepted invitation is no longer open');
});

test('an expired link is refused; a resend mails a new link and the old one stops', async () => {
  const to = email('late');
  const created = await (await owner())('POST', '/v1/invitations', { body: { email: to, role: 'staff' } });
  const first = tokenOf(await mailTo(to), 'invitation');
  clock.advance(7 * 24 * 3600_000);
  // A week on, the owner signs in again (a session idles out in 12 hours).
  const as = await owner();
  const expired = await accept(first);
  assert.equal(expired.status, 422);
  assert.match(expired.body.detail, /expired, was revoked or was already used/);
  const listed = await as('GET', '/v1/invitations');
  assert.equal(listed.body.data.find((i: { id: string }) => i.id === created.body.id).status, 'expired');
  const resent = await as('POST', `/v1/invitations/${created.body.id}/resend`);
  assert.equal(resent.status, 200, resent.text);
  assert.equal(resent.body.status, 'pending');
  await t.app.runner.runOnce();
  await eventuallyMails(to, 2);
  const mails = smtp.received.filter((m) => m.envelopeTo.includes(to));
  const second = tokenOf(mails[1]!, 'invitation');
  assert.notEqual(second, first);
  assert.equal((await accept(first)).status, 422, 'the first link stopped with the resend');
  assert.equal((await accept(second)).status, 201);
});

async function eventuallyMails(to: string, n: number): Promise<void> {
  await smtp.waitFor(smtp.received.length - smtp.received.filter((m) => m.envelopeTo.includes(to)).length + n);
}

test('a revoked invitation is refused; one email cannot be invited twice, nor an existing user', async () => {
  const as = await owner();
  const to = email('revoked');
  const created = await as('POST', '/v1/invitations', { body: { email: to, role: 'staff' } });
  const token = tokenOf(await mailTo(to), 'invitation');
  const twice = await as('POST', '/v1/invitations', { body: { email: to, role: 'staff' } });
  assert.equal(twice.status, 409);
  const revoked = await as('DELETE', `/v1/invitations/${created.body.id}`);
  assert.equal(revoked.status, 200);
  assert.equal(revoked.body.status, 'revoked');
  assert.equal((await accept(token)).status, 422);
  assert.equal((await as('POST', `/v1/invitations/${created.body.id}/resend`)).status, 409);
  assert.equal((await as('POST', '/v1/invitations', { body: { email: t.tenant.ownerEmail, role: 'staff' } })).status, 409);
});

test('nobody can bomb an inbox: three invitation mails to one address, then 429 with Retry-After', async () => {
  const to = email('bombed');
  const other = await t.newTenant();
  const results: number[] = [];
  // Three accounts' owners invite the same address: the limit is the recipient's, across accounts.
  for (const tenant of [t.tenant, other, await t.newTenant(), await t.newTenant()]) {
    const as = asSession(t, await signInOk(t, tenant.ownerEmail, tenant.ownerPassword));
    results.push((await as('POST', '/v1/invitations', { body: { email: to, role: 'staff' } })).status);
  }
  assert.deepEqual(results, [201, 201, 201, 429]);
  const as = await owner();
  const refused = await as('POST', '/v1/invitations', { body: { email: to, role: 'staff' } });
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.deepEqual(refused.body.violated_policies, ['mail-recipient']);
});

test('bad input gets a problem, never a 5xx; API keys get 403', async () => {
  const as = await owner();
  for (const body of [{ email: 'not an email', role: 'staff' }, { email: email('x'), role: 'king' }, { email: email('y') }, {}]) {
    const res = await as('POST', '/v1/invitations', { body });
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  }
  assert.equal((await as('POST', '/v1/invitations/inv_nope/resend')).status, 404);
  assert.equal((await as('DELETE', '/v1/invitations/nope')).status, 404);
  for (const body of [
    {},
    { token: 'x', password: 'long enough password' },
    { token: 'a'.repeat(43), password: 'long enough password' },
    { token: 7 },
  ]) {
    const res = await t.request('POST', '/v1/invitations/accept', { key: null, body });
    assert.equal(res.status, 422, JSON.stringify(body));
  }
  assert.equal(
    (await t.request('POST', '/v1/invitations/accept', { key: null, raw: '{', headers: { 'content-type': 'application/json' } })).status,
    400,
  );
  assert.equal((await t.request('POST', '/v1/email_changes/confirm', { key: null, body: { token: 'b'.repeat(43) } })).status, 422);
  assert.equal(
    (await t.request('POST', '/v1/invitations', { key: t.tenant.liveKey, body: { email: email('k'), role: 'staff' } })).status,
    403,
  );
  assert.equal((await t.request('GET', '/v1/invitations', { key: t.tenant.liveKey })).status, 403);
  const staffTo = email('staff');
  await as('POST', '/v1/invitations', { body: { email: staffTo, role: 'staff' } });
  await accept(tokenOf(await mailTo(staffTo), 'invitation'));
  const staff = asSession(t, await signInOk(t, staffTo, 'my own passphrase'));
  assert.equal((await staff('POST', '/v1/invitations', { body: { email: email('z'), role: 'owner' } })).status, 403);
});

test('an email change is confirmed on the new address before it counts, then the old address is told', async () => {
  const tenant = await t.newTenant();
  const as = asSession(t, await signInOk(t, tenant.ownerEmail, tenant.ownerPassword));
  const to = email('new');
  const wrong = await as('POST', '/v1/session/email', { body: { email: to, password: 'not my password' } });
  assert.equal(wrong.status, 422);
  assert.equal(wrong.body.errors[0].pointer, '/password');
  const asked = await as('POST', '/v1/session/email', { body: { email: to, password: tenant.ownerPassword } });
  assert.equal(asked.status, 202, asked.text);
  assert.equal(asked.body.status, 'awaiting_confirmation');
  const mail = await mailTo(to);
  assert.match(mail.subject ?? '', /^Confirm your new email address for Test \d+$/);
  // Nothing changed yet: the old email still signs in, the new one does not.
  await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
  assert.equal((await signIn(t, to, tenant.ownerPassword)).status, 401);
  const token = tokenOf(mail, 'confirm-email');
  const confirmed = await t.request('POST', '/v1/email_changes/confirm', { key: null, body: { token } });
  assert.equal(confirmed.status, 200, confirmed.text);
  assert.deepEqual(confirmed.body, { object: 'email_change', email: to, status: 'confirmed', expires_at: null });
  const told = await mailTo(tenant.ownerEmail);
  assert.match(told.subject ?? '', /^Your readybell email for Test \d+ was changed$/);
  assert.ok((told.text ?? '').includes(to));
  assert.equal((await signIn(t, tenant.ownerEmail, tenant.ownerPassword)).status, 401);
  await signInOk(t, to, tenant.ownerPassword);
  assert.equal((await t.request('POST', '/v1/email_changes/confirm', { key: null, body: { token } })).status, 422, 'once');
});

test('an email change link expires after 24 hours', async () => {
  const tenant = await t.newTenant();
  const as = asSession(t, await signInOk(t, tenant.ownerEmail, tenant.ownerPassword));
  const to = email('slow');
  await as('POST', '/v1/session/email', { body: { email: to, password: tenant.ownerPassword } });
  const token = tokenOf(await mailTo(to), 'confirm-email');
  clock.advance(24 * 3600_000);
  assert.equal((await t.request('POST', '/v1/email_changes/confirm', { key: null, body: { token } })).status, 422);
  await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
});
