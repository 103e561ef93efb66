// Staff sessions (PRODUCT.md §5, §12): sign-in, the cookie's flags, CSRF, cross-site refusal,
// expiry, revocation and login throttling.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { asSession, signIn, signInOk } from '../helpers/session.ts';
import { randomBytes, scryptSync } from 'node:crypto';
import { insertSession } from '../../src/store/sessions.ts';
import { csrfTokenFor, hashSessionToken, passwordStamp } from '../../src/domain/session-token.ts';

const clock = new FakeClock(Date.now());
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

// Every test starts with room in the login buckets it uses (the per-address one refills in 5 minutes).
const refill = () => clock.advance(10 * 60_000);

test('signing in sets an HttpOnly, SameSite=Lax session cookie and returns the user, branches and a CSRF token', async () => {
  refill();
  const s = await signIn(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
  assert.equal(s.status, 201);
  assert.match(s.setCookie, /^readybell_session=[A-Za-z0-9_-]{43}; /);
  assert.match(s.setCookie, /; HttpOnly/);
  assert.match(s.setCookie, /; SameSite=Lax/);
  assert.match(s.setCookie, /; Path=\//);
  assert.doesNotMatch(s.setCookie, /Secure/, 'plain http on loopback with an http PUBLIC_URL: no Secure flag');
  assert.equal(s.body.user.email, t.tenant.ownerEmail);
  assert.equal(s.body.user.role, 'owner');
  assert.equal(s.body.branch.id, t.tenant.branchId);
  assert.deepEqual(
    s.body.branches.map((b: { id: string }) => b.id),
    [t.tenant.branchId],
  );
  assert.equal(s.body.account.api_access, true);
  assert.equal(typeof s.body.csrf_token, 'string');

  const me = await asSession(t, s)('GET', '/v1/session');
  assert.equal(me.status, 200);
  assert.equal(me.body.csrf_token, s.csrf);
  assert.equal(me.headers.get('cache-control'), 'no-store');
});

test('the cookie is Secure and __Host- prefixed when the public URL is https', async () => {
  const secure = await startTestApp({ env: { PUBLIC_URL: 'https://pickup.example.com' } });
  try {
    const s = await signIn(secure, secure.tenant.ownerEmail, secure.tenant.ownerPassword);
    assert.equal(s.status, 201);
    assert.match(s.setCookie, /^__Host-readybell_session=/);
    assert.match(s.setCookie, /; Secure/);
    assert.match(s.setCookie, /; HttpOnly/);
  } finally {
    await secure.close();
  }
});

test('a wrong password and an unknown email get the same generic 401', async () => {
  refill();
  const wrong = await signIn(t, t.tenant.ownerEmail, 'not the password');
  const unknown = await signIn(t, 'nobody@example.test', 'whatever it is');
  for (const r of [wrong, unknown]) {
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'unauthenticated');
    assert.equal(r.body.detail, 'The email or password is wrong.');
    assert.equal(r.setCookie, '');
  }
});

test('a session acts in live mode on its branch; unsafe methods without the CSRF token are 403', async () => {
  refill();
  const s = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
  const req = asSession(t, s);
  const none = await req('POST', '/v1/tickets', { body: {}, csrf: null });
  assert.equal(none.status, 403);
  assert.equal(none.body.code, 'forbidden');
  assert.match(none.body.detail, /CSRF/);
  const wrong = await req('POST', '/v1/tickets', { body: {}, csrf: s.csrf.slice(0, -2) + 'xx' });
  assert.equal(wrong.status, 403);

  const ok = await req('POST', '/v1/tickets', { body: { external_ref: 'counter-1' } });
  assert.equal(ok.status, 201);
  assert.equal(ok.body.livemode, true);
  assert.equal(ok.body.branch, t.tenant.branchId);
  const viaKey = await t.request('GET', `/v1/tickets/${ok.body.id}`, { key: t.tenant.liveKey });
  assert.equal(viaKey.body.external_ref, 'counter-1', 'the same ticket the live API key sees');
  assert.equal((await t.request('GET', `/v1/tickets/${ok.body.id}`, { key: t.tenant.testKey })).status, 404, 'never test data');
});

test('the cookie never works cross-site: a foreign Origin or Sec-Fetch-Site is refused, even with the CSRF token', async () => {
  refill();
  const s = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
  const req = asSession(t, s);
  const foreignPost = await req('POST', '/v1/tickets', { body: {}, headers: { origin: 'https://evil.example' } });
  assert.equal(foreignPost.status, 403);
  assert.match(foreignPost.body.detail, /another site/);
  const foreignGet = await req('GET', '/v1/tickets', { headers: { 'sec-fetch-site': 'cross-site' } });
  assert.equal(foreignGet.status, 403);
  const sameSite = await req('DELETE', '/v1/session', { headers: { 'sec-fetch-site': 'same-site' } });
  assert.equal(sameSite.status, 403, 'a sibling subdomain is another site too');
  const nullOrigin = await req('POST', '/v1/tickets', { body: {}, headers: { origin: 'null' } });
  assert.equal(nullOrigin.status, 403, 'sandboxed frames send Origin: null');

  const own = await req('POST', '/v1/tickets', { body: {}, headers: { origin: t.url, 'sec-fetch-site': 'same-origin' } });
  assert.equal(own.status, 201);
  const publicOrigin = await req('GET', '/v1/tickets', { headers: { origin: 'http://localhost:3000' } });
  assert.equal(publicOrigin.status, 200, 'the configured public URL is this site too');

  const loginCsrf = await signIn(t, t.tenant.ownerEmail, t.tenant.ownerPassword, { origin: 'https://evil.example' });
  assert.equal(loginCsrf.status, 403, 'a foreign page cannot sign a visitor in');
});

test('a session ends after 12 hours idle, and after 7 days however busy', async () => {
  refill();
  const s = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
  const req = asSession(t, s);
  clock.advance(11 * 3600_000);
  assert.equal((await req('GET', '/v1/session')).status, 200, 'activity within 12 h keeps it');
  clock.advance(11 * 3600_000);
  assert.equal((await req('GET', '/v1/tickets')).status, 200);
  clock.advance(12 * 3600_000 + 1000);
  const idle = await req('GET', '/v1/tickets');
  assert.equal(idle.status, 401);
  assert.match(idle.body.detail, /session has expired/);

  refill();
  const busy = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
  const busyReq = asSession(t, busy);
  for (let h = 0; h < 7 * 24 - 6; h += 6) {
    clock.advance(6 * 3600_000);
    assert.equal((await busyReq('GET', '/v1/session')).status, 200, `still on at hour ${h + 6}`);
  }
  clock.advance(6 * 3600_000);
  assert.equal((await busyReq('GET', '/v1/session')).status, 401, 'past the absolute limit');
});

test('signing out ends the session everywhere and clears the cookie', async () => {
  refill();
  const s = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
  const other = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
  const out = await asSession(t, s)('DELETE', '/v1/session');
  assert.equal(out.status, 200);
  assert.match(out.headers.get('set-cookie') ?? '', /^readybell_session=; .*Max-Age=0/);
  assert.equal((await asSession(t, s)('GET', '/v1/session')).status, 401);
  assert.equal((await asSession(t, other)('GET', '/v1/session')).status, 200, 'another device stays signed in');
});

test('changing the password ends every session of the user; the new password works', async () => {
  refill();
  const tenant = await t.newTenant();
  const a = await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
  const b = await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
  const wrong = await asSession(t, a)('POST', '/v1/session/password', {
    body: { current_password: 'nope nope nope', new_password: 'a brand new password' },
  });
  assert.equal(wrong.status, 422);
  assert.equal((await asSession(t, a)('GET', '/v1/session')).status, 200, 'a failed change ends nothing');
  const changed = await asSession(t, a)('POST', '/v1/session/password', {
    body: { current_password: tenant.ownerPassword, new_password: 'a brand new password' },
  });
  assert.equal(changed.status, 200);
  assert.equal((await asSession(t, a)('GET', '/v1/session')).status, 401);
  assert.equal((await asSession(t, b)('GET', '/v1/session')).status, 401);
  assert.equal((await signIn(t, tenant.ownerEmail, tenant.ownerPassword)).status, 401);
  assert.equal((await signIn(t, tenant.ownerEmail, 'a brand new password')).status, 201);
});

test('sign-in is throttled per account and address: the seventh quick try is 429 with Retry-After, then one a minute', async () => {
  refill();
  const tenant = await t.newTenant();
  for (let i = 0; i < 6; i++) assert.equal((await signIn(t, tenant.ownerEmail, `wrong ${i}`)).status, 401);
  const throttled = await signIn(t, tenant.ownerEmail, tenant.ownerPassword);
  assert.equal(throttled.status, 429, 'even the right password waits');
  assert.equal(throttled.body.code, 'rate-limited');
  assert.deepEqual(throttled.body.violated_policies, ['login-account-address']);
  assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
  assert.equal((await signIn(t, t.tenant.ownerEmail, t.tenant.ownerPassword)).status, 201, 'other accounts are not locked out');
  clock.advance(Number(throttled.headers.get('retry-after')) * 1000);
  assert.equal((await signIn(t, tenant.ownerEmail, tenant.ownerPassword)).status, 201);
});

test('wrong passwords from one address never keep the owner out: the per-email brake lets an address without failures in', async () => {
  refill();
  const proxied = await startTestApp({ clock, env: { TRUST_PROXY: '127.0.0.1' } });
  try {
    const { ownerEmail, ownerPassword } = proxied.tenant;
    const from = (address: string, password: string, email = ownerEmail) =>
      signIn(proxied, email, password, { 'x-forwarded-for': address });
    const attacker = '203.0.113.7';
    const counter = '198.51.100.20';
    for (let i = 0; i < 6; i++) assert.equal((await from(attacker, `wrong ${i}`)).status, 401);
    assert.equal((await from(counter, ownerPassword)).status, 201, "the owner's right password from another address signs in");
    const stopped = await from(attacker, ownerPassword);
    assert.equal(stopped.status, 429);
    assert.deepEqual(stopped.body.violated_policies, ['login-account-address']);

    // One wrong password a minute for 75 minutes: the per-email brake engages for the attacker.
    const answers = { 401: 0, 429: 0 };
    for (let minute = 0; minute < 75; minute++) {
      clock.advance(60_000);
      const r = await from(attacker, `guess ${minute}`);
      assert.ok(r.status === 401 || r.status === 429, `minute ${minute}: ${r.status}`);
      answers[r.status as 401 | 429]++;
    }
    assert.ok(answers[429] >= 10, `the brake refused ${answers[429]} of 75`);
    assert.ok(answers[401] <= 55, `${answers[401]} guesses were checked`);
    const braked = await from(attacker, ownerPassword);
    assert.equal(braked.status, 429, 'an address that failed on this email waits while the brake is on');
    assert.deepEqual(braked.body.violated_policies, ['login-account']);
    assert.equal((await from(counter, ownerPassword)).status, 201, 'the owner still signs in from an address without failures');

    // A fresh address gets three tries while the brake is on, then waits like the others.
    for (let i = 0; i < 3; i++) assert.equal((await from('192.0.2.99', `fresh guess ${i}`)).status, 401);
    assert.equal((await from('192.0.2.99', ownerPassword)).status, 429);

    // IPv6 clients are counted per /64: rotating the low bits buys no extra tries.
    const other = await proxied.newTenant();
    for (let i = 0; i < 6; i++) assert.equal((await from(`2001:db8:7:1::${i + 1}`, `wrong ${i}`, other.ownerEmail)).status, 401);
    assert.equal((await from('2001:db8:7:1:ffff::99', other.ownerPassword, other.ownerEmail)).status, 429);
    assert.equal((await from('2001:db8:7:2::1', other.ownerPassword, other.ownerEmail)).status, 201);
  } finally {
    await proxied.close();
  }
});

test("after an attacker drained the per-email brake, the owner's first typos from a clean address are not punished", async () => {
  refill();
  const proxied = await startTestApp({ clock, env: { TRUST_PROXY: '127.0.0.1' } });
  try {
    const { ownerEmail, ownerPassword } = proxied.tenant;
    const from = (address: string, password: string) => signIn(proxied, ownerEmail, password, { 'x-forwarded-for': address });
    // Wrong passwords from ten addresses, five each: the brake's fifty are gone.
    for (let a = 1; a <= 10; a++) for (let i = 0; i < 5; i++) assert.equal((await from(`203.0.113.${a}`, `guess ${a}-${i}`)).status, 401);
    assert.deepEqual((await from('203.0.113.1', ownerPassword)).body.violated_policies, ['login-account'], 'the brake is on');

    const counter = '198.51.100.30';
    assert.equal((await from(counter, 'typo one')).status, 401);
    assert.equal((await from(counter, 'typo two')).status, 401, 'a second typo is told it is wrong, not to wait');
    assert.equal((await from(counter, ownerPassword)).status, 201);
    // The attacker's addresses, meanwhile, are still held by the brake.
    assert.deepEqual((await from('203.0.113.9', ownerPassword)).body.violated_policies, ['login-account']);
  } finally {
    await proxied.close();
  }
});

test('sign-in is throttled per address across accounts', async () => {
  refill();
  let status = 0;
  let tries = 0;
  while (tries < 40) {
    tries++;
    status = (await signIn(t, `sprayed-${tries}@example.test`, 'password1234')).status;
    if (status !== 401) break;
  }
  assert.equal(status, 429);
  assert.ok(tries > 20 && tries <= 31, `throttled after ${tries} tries`);
});

test('API keys have no session: the session routes answer 403', async () => {
  const res = await t.request('GET', '/v1/session');
  assert.equal(res.status, 403);
  assert.equal(res.body.code, 'forbidden');
  assert.equal((await t.request('GET', '/v1/session', { key: null })).status, 401);
});

test('the hourly sweep deletes sessions a day past their end, and only those', async () => {
  refill();
  const tenant = await t.newTenant();
  const old = await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
  await asSession(t, old)('DELETE', '/v1/session');
  clock.advance(25 * 3600_000);
  await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
  const count = async () =>
    Number(
      (
        await t.app.services.db.query<{ n: number }>(
          'SELECT COUNT(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1',
          [tenant.ownerEmail],
        )
      )[0]!.n,
    );
  assert.equal(await count(), 2);
  await t.app.maintenance.sweep();
  assert.equal(await count(), 1, 'the signed-out one went; the live one stays');
});

test("a session has its own rate-limit buckets: an API key's exhausted bucket does not stop the counter", async () => {
  const small = await startTestApp({ env: { RATE_LIMIT_WRITES_BURST: '2', RATE_LIMIT_WRITES_PER_SECOND: '0.001' } });
  try {
    for (let i = 0; i < 2; i++)
      assert.equal((await small.request('POST', '/v1/tickets', { key: small.tenant.liveKey, body: {} })).status, 201);
    assert.equal((await small.request('POST', '/v1/tickets', { key: small.tenant.liveKey, body: {} })).status, 429);
    const s = await signInOk(small, small.tenant.ownerEmail, small.tenant.ownerPassword);
    const created = await asSession(small, s)('POST', '/v1/tickets', { body: {} });
    assert.equal(created.status, 201);
    assert.match(created.headers.get('ratelimit') ?? '', /"writes";r=1/);
  } finally {
    await small.close();
  }
});

/** The stored form of passwords hashed before argon2id: scrypt, N=2^15, r=8, p=1. */
function legacyScryptHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return `scrypt$32768$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const storedHash = async (email: string): Promise<string> =>
  (await t.app.services.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = $1', [email]))[0]!.password_hash;

const ARGON2ID_OWASP = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;

test('new passwords are stored as argon2id with OWASP parameters', async () => {
  refill();
  const tenant = await t.newTenant();
  assert.match(await storedHash(tenant.ownerEmail), ARGON2ID_OWASP);
  const s = await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
  const changed = await asSession(t, s)('POST', '/v1/session/password', {
    body: { current_password: tenant.ownerPassword, new_password: 'another fine password' },
  });
  assert.equal(changed.status, 200);
  assert.match(await storedHash(tenant.ownerEmail), ARGON2ID_OWASP);
});

test('a password stored with scrypt still signs in and is replaced by argon2id; the user stays signed in elsewhere', async () => {
  refill();
  const tenant = await t.newTenant();
  const legacy = legacyScryptHash(tenant.ownerPassword);
  const userId = (await t.app.services.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [tenant.ownerEmail]))[0]!.id;
  // A device signed in while the scrypt hash was stored.
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  await t.app.services.db.write(async (tx) => {
    await tx.run('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, legacy]);
    await insertSession(tx, {
      id: `ses_legacy${userId.slice(-16)}`,
      tokenHash: hashSessionToken(token),
      userId,
      accountId: tenant.accountId,
      branchId: tenant.branchId,
      passwordStamp: passwordStamp(legacy),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 3600_000,
      revokedAt: null,
    });
  });
  const earlier = asSession(t, {
    status: 201,
    headers: new Headers(),
    cookie: `readybell_session=${token}`,
    setCookie: '',
    csrf: csrfTokenFor(token),
    body: null,
  });
  assert.equal((await earlier('GET', '/v1/session')).status, 200);

  assert.equal((await signIn(t, tenant.ownerEmail, 'not the password')).status, 401);
  assert.equal(await storedHash(tenant.ownerEmail), legacy, 'a wrong password rehashes nothing');

  const s = await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
  const rehashed = await storedHash(tenant.ownerEmail);
  assert.match(rehashed, ARGON2ID_OWASP);
  assert.equal((await asSession(t, s)('GET', '/v1/session')).status, 200);
  assert.equal((await earlier('GET', '/v1/session')).status, 200, 'a rehash is not a password change: the other device stays signed in');

  assert.equal((await signIn(t, tenant.ownerEmail, tenant.ownerPassword)).status, 201);
  assert.equal(await storedHash(tenant.ownerEmail), rehashed, 'an argon2id hash is kept as it is');
  assert.equal((await signIn(t, tenant.ownerEmail, 'not the password')).status, 401);
});
