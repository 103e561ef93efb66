// What only the staff page may do (PRODUCT.md §3, §12): API keys and users, by role; branch
// switching within the account; tenancy of sessions; the live stream.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { asSession, signIn, signInOk, type Signed } from '../helpers/session.ts';
import { createBranch } from '../../src/actions/provision.ts';

let t: TestApp;
let owner: Signed;
before(async () => {
  t = await startTestApp();
  owner = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
});
after(() => t.close());

async function invite(role: 'owner' | 'manager' | 'staff'): Promise<{ id: string; session: Signed }> {
  const res = await asSession(t, owner)('POST', '/v1/users', {
    body: { email: `${role}-${Math.random().toString(36).slice(2)}@example.test`, role },
  });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.id, session: await signInOk(t, res.body.email, res.body.password) };
}

test('an owner creates an API key: the full key is shown once, works at once, and stops working when revoked', async () => {
  const req = asSession(t, owner);
  const created = await req('POST', '/v1/api_keys', {
    body: { mode: 'live', name: 'Till 2' },
    headers: { 'idempotency-key': 'key-create-1' },
  });
  assert.equal(created.status, 201);
  assert.match(created.body.secret, /^rk_live_/);
  assert.equal(created.body.redacted, `rk_live_…${created.body.secret.slice(-4)}`);
  const replay = await req('POST', '/v1/api_keys', {
    body: { mode: 'live', name: 'Till 2' },
    headers: { 'idempotency-key': 'key-create-1' },
  });
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.body.id, created.body.id, 'no second key');
  assert.equal(replay.body.secret, null, 'shown once: not even a replay shows it again');
  const stored = await t.app.services.db.query<{ response_body: string }>('SELECT response_body FROM idempotency_keys WHERE key = $1', [
    'key-create-1',
  ]);
  assert.ok(!stored[0]!.response_body.includes(created.body.secret), 'the secret is not at rest in the idempotency store');

  const listed = await req('GET', '/v1/api_keys');
  const row = listed.body.data.find((k: { id: string }) => k.id === created.body.id);
  assert.equal(row.secret, null);
  assert.equal(row.name, 'Till 2');
  assert.equal((await t.request('GET', '/v1/tickets', { key: created.body.secret })).status, 200);

  const revoked = await req('DELETE', `/v1/api_keys/${created.body.id}`);
  assert.equal(revoked.status, 200);
  assert.notEqual(revoked.body.revoked_at, null);
  const after = await t.request('GET', '/v1/tickets', { key: created.body.secret });
  assert.equal(after.status, 401);
  assert.equal(after.body.code, 'invalid-api-key');
});

test('API keys cannot manage keys or users (403), whatever their mode', async () => {
  for (const key of [t.tenant.liveKey, t.tenant.testKey]) {
    for (const [method, path, body] of [
      ['GET', '/v1/api_keys'],
      ['POST', '/v1/api_keys', { mode: 'live' }],
      ['GET', '/v1/users'],
      ['POST', '/v1/users', { email: 'x@example.test', role: 'owner' }],
    ] as const) {
      const res = await t.request(method, path, { key, body });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.code, 'forbidden');
    }
  }
});

test('a staff user runs tickets but cannot create keys or users; a manager changes settings but not keys', async () => {
  const staff = asSession(t, (await invite('staff')).session);
  assert.equal((await staff('POST', '/v1/tickets', { body: {} })).status, 201);
  for (const [method, path, body] of [
    ['POST', '/v1/api_keys', { mode: 'test' }],
    ['GET', '/v1/api_keys'],
    ['POST', '/v1/users', { email: 'y@example.test', role: 'staff' }],
    ['PATCH', '/v1/branch', { expiry_hours: 4 }],
    ['POST', '/v1/queues', { name: 'S' }],
  ] as const) {
    const res = await staff(method, path, { body });
    assert.equal(res.status, 403, `staff ${method} ${path}`);
  }
  const manager = asSession(t, (await invite('manager')).session);
  assert.equal((await manager('PATCH', '/v1/branch', { body: { expiry_hours: 6 } })).status, 200);
  assert.equal((await manager('POST', '/v1/api_keys', { body: { mode: 'test' } })).status, 403);
  assert.equal((await manager('GET', '/v1/users')).status, 403);
});

test('owners invite, re-role and remove users; a removed user is signed out at once; the last owner stays', async () => {
  const req = asSession(t, owner);
  const { id, session } = await invite('staff');
  const promoted = await req('PATCH', `/v1/users/${id}`, { body: { role: 'manager' } });
  assert.equal(promoted.body.role, 'manager');
  assert.equal(promoted.body.password, null);
  assert.equal((await asSession(t, session)('GET', '/v1/session')).body.user.role, 'manager', 'the new role applies to open sessions');

  const reset = await req('PATCH', `/v1/users/${id}`, { body: { reset_password: true } });
  assert.equal(typeof reset.body.password, 'string');
  assert.equal((await asSession(t, session)('GET', '/v1/session')).status, 401, 'a password reset ends their sessions');
  const again = await signInOk(t, reset.body.email, reset.body.password);

  assert.equal((await req('DELETE', `/v1/users/${id}`)).status, 200);
  assert.equal((await asSession(t, again)('GET', '/v1/tickets')).status, 401);
  assert.equal((await signIn(t, reset.body.email, reset.body.password)).status, 401);
  assert.ok(!(await req('GET', '/v1/users')).body.data.some((u: { id: string }) => u.id === id));

  const me = owner.body.user.id;
  const demote = await req('PATCH', `/v1/users/${me}`, { body: { role: 'staff' } });
  assert.equal(demote.status, 409);
  assert.match(demote.body.detail, /last owner/);
  assert.equal((await req('DELETE', `/v1/users/${me}`)).status, 409);
  const dup = await req('POST', '/v1/users', { body: { email: t.tenant.ownerEmail, role: 'staff' } });
  assert.equal(dup.status, 409);
});

test("another account's session cannot see or change this branch's tickets, users or keys (404)", async () => {
  const ticket = (await asSession(t, owner)('POST', '/v1/tickets', { body: {} })).body;
  const stranger = await t.newTenant();
  const other = asSession(t, await signInOk(t, stranger.ownerEmail, stranger.ownerPassword));
  assert.equal((await other('GET', `/v1/tickets/${ticket.id}`)).status, 404);
  assert.equal((await other('POST', `/v1/tickets/${ticket.id}/ready`)).status, 404);
  assert.equal((await other('PATCH', `/v1/users/${owner.body.user.id}`, { body: { role: 'staff' } })).status, 404);
  const key = (await asSession(t, owner)('GET', '/v1/api_keys')).body.data[0];
  assert.equal((await other('DELETE', `/v1/api_keys/${key.id}`)).status, 404);
  const hop = await other('POST', '/v1/session/branch', { body: { branch: t.tenant.branchId } });
  assert.equal(hop.status, 422, 'cannot switch to a branch of another account');
});

test('a user with several branches switches between them; each sees only its own tickets', async () => {
  const second = await t.app.services.db.write((tx) => createBranch(tx, { accountId: t.tenant.accountId, name: 'Second' }, Date.now()));
  const s = await signInOk(t, t.tenant.ownerEmail, t.tenant.ownerPassword);
  const req = asSession(t, s);
  assert.equal(s.body.branches.length, 2);
  const first = (await req('POST', '/v1/tickets', { body: {} })).body;
  const switched = await req('POST', '/v1/session/branch', { body: { branch: second.id } });
  assert.equal(switched.status, 200);
  assert.equal(switched.body.branch.id, second.id);
  assert.equal((await req('GET', `/v1/tickets/${first.id}`)).status, 404);
  const there = (await req('POST', '/v1/tickets', { body: {} })).body;
  assert.equal(there.branch, second.id);
  await req('POST', '/v1/session/branch', { body: { branch: t.tenant.branchId } });
  assert.equal((await req('GET', `/v1/tickets/${first.id}`)).status, 200);
});

test('the free plan: sessions work, but API keys cannot be created (plan-required) and the session says so', async () => {
  const free = await t.newTenant({ plan: 'free' });
  const s = await signInOk(t, free.ownerEmail, free.ownerPassword);
  assert.equal(s.body.account.api_access, false);
  const req = asSession(t, s);
  assert.equal((await req('POST', '/v1/tickets', { body: {} })).status, 201);
  const key = await req('POST', '/v1/api_keys', { body: { mode: 'live' } });
  assert.equal(key.status, 403);
  assert.equal(key.body.code, 'plan-required');
});

test('GET /v1/stream sends the branch live updates to a session', async () => {
  const controller = new AbortController();
  const res = await fetch(`${t.url}/v1/stream`, { headers: { cookie: owner.cookie }, signal: controller.signal });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('event: ready')) text += (await reader.read()).value ?? '';
  const created = (await asSession(t, owner)('POST', '/v1/tickets', { body: {} })).body;
  while (!text.includes(created.id)) text += (await reader.read()).value ?? '';
  const line = text.split('\n').find((l) => l.startsWith('data: ') && l.includes(created.id))!;
  const message = JSON.parse(line.slice(6));
  assert.equal(message.type, 'ticket.created');
  assert.equal(message.display_number, created.display_number);
  controller.abort();
  const foreign = await fetch(`${t.url}/v1/stream`, { headers: { cookie: owner.cookie, 'sec-fetch-site': 'cross-site' } });
  assert.equal(foreign.status, 403);
});
