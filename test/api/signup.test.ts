// Sign-up and email verification (decision 0081) against a local SMTP server: a shop signs up,
// reads the verification mail, follows its link once and lands signed in with its first test key;
// live keys wait for that; a known email gets the same answer and a mail instead; weak passwords,
// bad fields and floods are refused; SIGNUP off and first-owner close it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';
import { FakeClock } from '../helpers/clock.ts';
import { asSession, signInOk, type Signed } from '../helpers/session.ts';
import { configProblems } from '../helpers/config-problems.ts';
import { eventually } from '../helpers/eventually.ts';
import { createTestStore } from '../helpers/store.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';

let smtp: LocalSmtp;
let t: TestApp;
const clock = new FakeClock();
let seq = 0;
const PASSWORD = 'a long phrase of my own';

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({
    clock,
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'Readybell <noreply@pickup.example>', SIGNUP: 'open', TRIAL_DAYS: '14', TRUST_PROXY: 'true' },
  });
});
after(async () => {
  await t?.close();
  await smtp?.close();
});

const newEmail = (): string => `shop${++seq}-${Date.now()}@example.test`;
/** Each test signs up from its own address, so the per-address bucket of one does not stop another. */
const from = (n: number) => ({ 'x-forwarded-for': `10.0.${Math.floor(n / 256)}.${n % 256}` });

async function signUp(t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.request('POST', '/v1/signup', {
    key: null,
    body: { password: PASSWORD, shop_name: 'Café Olé', timezone: 'Europe/Paris', ...body },
    headers,
  });
}

/** Runs the mail jobs and answers the mails to `to` so far, waiting for `n` of them. */
async function mailsTo(to: string, n = 1) {
  await t.app.runner.runOnce();
  const mine = () => smtp.received.filter((m) => m.envelopeTo.includes(to));
  await eventually(() => mine().length >= n, `${n} mails to ${to}`);
  return mine();
}
const mailTo = async (to: string) => (await mailsTo(to))[0]!;

const tokenOf = (link: string): string => link.slice(link.lastIndexOf('/') + 1);

async function verify(token: string) {
  const res = await t.request('POST', '/v1/signup/verify', { key: null, body: { token } });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const signed: Signed = {
    status: res.status,
    headers: res.headers,
    cookie,
    setCookie: '',
    csrf: res.body?.session?.csrf_token ?? '',
    body: res.body,
  };
  return { res, signed };
}

test('the settings say sign-up is open, on a 14-day trial of pro, with mail sent by SMTP', async () => {
  const res = await t.request('GET', '/v1/signup', { key: null });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {
    object: 'signup_settings',
    open: true,
    mode: 'open',
    plan: 'pro',
    trial_days: 14,
    email_delivery: 'smtp',
    min_password_length: 10,
  });
});

test('a shop signs up, verifies its address through the emailed link once, and lands signed in with a test key', async () => {
  const email = newEmail();
  const res = await signUp(t, { email: ` ${email.toUpperCase()} `, shop_name: 'Café Olé', language: 'fr' }, from(1));
  assert.equal(res.status, 202, res.text);
  assert.deepEqual(res.body, { object: 'signup', email, email_delivery: 'smtp' });
  assert.equal(res.headers.get('set-cookie'), null, 'nobody is signed in by the sign-up itself');

  const mail = await mailTo(email);
  assert.equal(mail.subject, 'Confirmez votre adresse e-mail pour Café Olé');
  const link = smtp.linkIn(mail, 'http://localhost:3000/staff/#/verify/');
  assert.match(tokenOf(link), /^[A-Za-z0-9_-]{43}$/);
  const rows = await t.app.services.db.query<{ token_hash: string }>('SELECT token_hash FROM email_links');
  assert.ok(!rows.some((r) => r.token_hash.includes(tokenOf(link))), 'only a hash of the token is stored');

  // Before verifying, the owner may sign in with the password and work, but live keys wait.
  const early = await signInOk(t, email, PASSWORD);
  assert.equal(early.body.user.email_verified, false);
  assert.equal(early.body.account.plan, 'pro');
  assert.equal(early.body.account.name, 'Café Olé');
  assert.equal(early.body.branch.timezone, 'Europe/Paris');
  const asEarly = asSession(t, early);
  const refused = await asEarly('POST', '/v1/api_keys', { body: { mode: 'live' } });
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.body.detail, /Live keys wait until your email address is verified/);
  const queues = await asEarly('GET', '/v1/queues');
  assert.deepEqual(
    queues.body.data.map((q: any) => q.name),
    ['A'],
  );

  const { res: verified, signed } = await verify(tokenOf(link));
  assert.equal(verified.status, 201, verified.text);
  assert.match(signed.cookie, /^readybell_session=/);
  assert.equal(verified.body.session.user.email, email);
  assert.equal(verified.body.session.user.role, 'owner');
  assert.equal(verified.body.session.user.email_verified, true);
  assert.match(verified.body.test_key, /^rk_test_/);
  const me = asSession(t, signed);
  const live = await me('POST', '/v1/api_keys', { body: { mode: 'live' } });
  assert.equal(live.status, 201, live.text);
  // The test key works against the API.
  const ticket = await t.request('POST', '/v1/tickets', { key: verified.body.test_key, body: {} });
  assert.equal(ticket.status, 201, ticket.text);

  const again = await verify(tokenOf(link));
  assert.equal(again.res.status, 422);
  assert.equal(again.res.body.code, 'validation-failed');
  assert.equal(again.res.body.errors[0].pointer, '/token');

  const trial = await t.app.services.db.query<{ trial_ends_at: number }>('SELECT trial_ends_at FROM accounts WHERE name = $1', [
    'Café Olé',
  ]);
  assert.equal(Number(trial[0]!.trial_ends_at), clock.now() + 14 * 86_400_000);
});

test('a verification link expires after 7 days', async () => {
  const email = newEmail();
  assert.equal((await signUp(t, { email }, from(2))).status, 202);
  const link = smtp.linkIn(await mailTo(email), 'http://localhost:3000/staff/#/verify/');
  clock.advance(7 * 86_400_000 + 1);
  const late = await verify(tokenOf(link));
  assert.equal(late.res.status, 422);
  assert.match(late.res.body.detail, /expired or has already been used/);
  // A new link, asked for while signed in, works.
  const s = await signInOk(t, email, PASSWORD);
  const sent = await asSession(t, s)('POST', '/v1/session/verification_email', { body: { language: 'de' } });
  assert.equal(sent.status, 202, sent.text);
  assert.deepEqual(sent.body, { object: 'verification_email', email_delivery: 'smtp' });
  const mails = await mailsTo(email, 2);
  assert.equal(mails.length, 2);
  assert.equal(mails[1]!.subject, 'Bestätigen Sie Ihre E-Mail-Adresse für Café Olé');
  const ok = await verify(tokenOf(smtp.linkIn(mails[1]!, 'http://localhost:3000/staff/#/verify/')));
  assert.equal(ok.res.status, 201);
  assert.match(ok.res.body.test_key, /^rk_test_/, 'the expired link made no key: this one does');
  const twice = await asSession(t, s)('POST', '/v1/session/verification_email', { body: {} });
  assert.equal(twice.status, 409, 'a verified address needs no more links');
});

test('a known email gets the same answer, and a mail saying so instead of a second account', async () => {
  const email = newEmail();
  const first = await signUp(t, { email, shop_name: 'First Shop' }, from(3));
  const accounts = await t.app.services.db.query('SELECT id FROM accounts');
  const second = await signUp(t, { email, shop_name: 'Second Shop', password: 'another long phrase' }, from(3));
  assert.equal(second.status, first.status);
  assert.deepEqual(second.body, first.body);
  assert.equal((await t.app.services.db.query('SELECT id FROM accounts')).length, accounts.length, 'no second account');
  const mails = await mailsTo(email, 2);
  await t.app.runner.runOnce();
  assert.equal(smtp.received.filter((m) => m.envelopeTo.includes(email)).length, 2, 'one verification, one "already has an account"');
  const existing = mails.find((m) => m.subject?.startsWith('Your email address already has a readybell account'));
  assert.ok(existing, mails.map((m) => m.subject).join(' | '));
  assert.match(existing.subject ?? '', /\(First Shop\)/);
  assert.equal(smtp.linkIn(existing, 'http://localhost:3000/staff/'), 'http://localhost:3000/staff/');
});

test('weak passwords and bad fields are refused at their field, before anything is made', async () => {
  const accounts = (await t.app.services.db.query('SELECT id FROM accounts')).length;
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ password: 'short' }, '/password', /at least 10 characters/],
    [{ password: 'password123' }, '/password', /most common passwords/],
    [{ password: 'QWERTYUIOP' }, '/password', /most common passwords/],
    [{ password: 'aaaaaaaaaaaa' }, '/password', /repeats/],
    [{ password: 'Café Olé 2026' }, '/password', /shop’s name/],
    [{ timezone: 'Mars/Olympus' }, '/timezone', /not a time zone/],
    [{ email: 'not-an-email' }, '/email', /email address/],
    [{ shop_name: '   ' }, '/shop_name', /shop's name/],
  ];
  let n = 100;
  for (const [body, pointer, detail] of cases) {
    const res = await signUp(t, { email: newEmail(), ...body }, from(n++));
    assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
    assert.equal(res.body.errors[0].pointer, pointer);
    assert.match(res.body.errors[0].detail, detail);
  }
  const mine = await signUp(t, { email: 'joe.bloggs@example.test', password: 'joe.bloggs-pickup' }, from(n++));
  assert.equal(mine.status, 422);
  assert.match(mine.body.detail, /email address/);
  assert.equal((await t.app.services.db.query('SELECT id FROM accounts')).length, accounts);
});

test('sign-ups are throttled per email and per address, known email or not', async () => {
  const email = newEmail();
  for (let i = 0; i < 3; i++) assert.equal((await signUp(t, { email }, from(200 + i))).status, 202);
  const flood = await signUp(t, { email }, from(210));
  assert.equal(flood.status, 429, flood.text);
  assert.deepEqual(flood.body.violated_policies, ['signup-email']);
  assert.ok(Number(flood.headers.get('retry-after')) > 0);

  let last = 0;
  for (let i = 0; i < 25 && last !== 429; i++) last = (await signUp(t, { email: newEmail(), password: 'x' }, from(300))).status;
  assert.equal(last, 429, 'one address is stopped after its burst, bad requests included');
});

test('SIGNUP is checked at start; off closes sign-up; first-owner takes one owner, once', async () => {
  assert.match(configProblems({ SIGNUP: 'sometimes' })[0] ?? '', /^SIGNUP must be one of open, first-owner, off/);
  assert.match(configProblems({ TRIAL_DAYS: '-1' })[0] ?? '', /^TRIAL_DAYS must be a whole number/);
  assert.match(
    configProblems({ SIGNUP: 'open', DATABASE_URL: 'postgres://db/readybell' })[0] ?? '',
    /^SIGNUP=open on PostgreSQL needs SMTP_URL/,
  );

  const off = await startTestApp({ env: { SIGNUP: 'off' } });
  try {
    assert.equal((await off.request('GET', '/v1/signup', { key: null })).body.open, false);
    const res = await signUp(off, { email: newEmail() });
    assert.equal(res.status, 403);
    assert.match(res.body.detail, /Sign-up is closed/);
  } finally {
    await off.close();
  }
});

test('bad input to every sign-up route is a problem document, never a 5xx', async () => {
  const bodies: Array<[string, string]> = [
    ['/v1/signup', '{"email":1}'],
    ['/v1/signup', '{"email":"a@b.c","password":"x","shop_name":"s","timezone":"UTC","extra":1}'],
    ['/v1/signup', '{"email":"a@b.c","password":"a long phrase of mine","shop_name":"s","timezone":"UTC","language":"it"}'],
    ['/v1/signup/verify', '{}'],
    ['/v1/signup/verify', '{"token":"nope"}'],
    ['/v1/password_resets', '{"email":""}'],
    ['/v1/password_resets/complete', '{"token":"x","password":"a long phrase of mine"}'],
    ['/v1/password_resets/complete', '[]'],
    ['/v1/signup', 'not json'],
  ];
  for (const [path, raw] of bodies) {
    const res = await t.request('POST', path, { key: null, raw, headers: { 'content-type': 'application/json', ...from(400) } });
    assert.ok(res.status >= 400 && res.status < 500, `${path} ${raw}: ${res.status} ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  }
});

test('first-owner: an instance with no account takes one sign-up; without SMTP the link is in the log and the answer says so', async () => {
  const store = await createTestStore();
  const lines: string[] = [];
  const config = loadConfig({
    LOG_LEVEL: 'info',
    PORT: '0',
    PUBLIC_URL: 'http://localhost:3000',
    SHED_EVENT_LOOP_DELAY_MS: '0',
    ...store.env,
  });
  assert.equal(
    config.signup.mode,
    store.env.DATABASE_URL === undefined ? 'first-owner' : 'off',
    'the default of a self-hosted and a hosted store',
  );
  const app = await createApp(
    { ...config, signup: { ...config.signup, mode: 'first-owner' } },
    { logDestination: { write: (l: string) => void lines.push(l) } },
  );
  try {
    await app.listen();
    const url = `http://127.0.0.1:${(app.server.server.address() as { port: number }).port}`;
    const post = (path: string, body: unknown) =>
      fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const settings = await (await fetch(`${url}/v1/signup`)).json();
    assert.equal(settings.open, true);
    assert.equal(settings.email_delivery, 'log');
    const body = { email: 'first@example.test', password: PASSWORD, shop_name: 'Corner Café', timezone: 'Europe/Berlin' };
    const first = await post('/v1/signup', body);
    assert.equal(first.status, 202);
    assert.equal((await first.json()).email_delivery, 'log');
    const again = await post('/v1/signup', { ...body, email: 'second@example.test' });
    assert.equal(again.status, 403, 'the first owner exists: the screen is offered once');
    assert.equal((await (await fetch(`${url}/v1/signup`)).json()).open, false);
    await app.runner.runOnce();
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.mail === 'verify-email');
    assert.ok(logged, 'the verification link is logged');
    assert.ok(!lines.some((l) => l.includes('first@example.test')), 'the address is in no log line');
    const verified = await post('/v1/signup/verify', { token: tokenOf(String(logged.link)) });
    assert.equal(verified.status, 201);
    assert.equal((await verified.json()).session.account.name, 'Corner Café');
  } finally {
    await app.close();
    await store.drop();
  }
});
