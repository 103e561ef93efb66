// An account always keeps an owner (PRODUCT.md §3): the API refuses, with its own problem code,
// any role change or removal that would leave none, including two owners demoting each other at
// the same moment. The staff page relies on this; it does not only hide the control.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { asSession, signInOk, type Signed } from '../helpers/session.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function ownerOf(tenant: Tenant): Promise<Signed> {
  return signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
}

async function inviteOwner(owner: Signed): Promise<Signed> {
  const res = await asSession(t, owner)('POST', '/v1/users', {
    body: { email: `owner-${Math.random().toString(36).slice(2)}@example.test`, role: 'owner' },
  });
  assert.equal(res.status, 201, res.text);
  return signInOk(t, res.body.email, res.body.password);
}

const owners = async (s: Signed): Promise<string[]> =>
  (await asSession(t, s)('GET', '/v1/users')).body.data
    .filter((u: { role: string }) => u.role === 'owner')
    .map((u: { id: string }) => u.id);

test('the only owner cannot demote or remove themselves: 409 last-owner, at the role field, and nothing changes', async () => {
  const owner = await ownerOf(await t.newTenant());
  const me = owner.body.user.id;
  for (const role of ['manager', 'staff']) {
    const res = await asSession(t, owner)('PATCH', `/v1/users/${me}`, { body: { role } });
    assert.equal(res.status, 409);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(res.body.code, 'last-owner');
    assert.equal(res.body.type, '/problems/last-owner');
    assert.match(res.body.detail, /last owner/);
    assert.deepEqual(
      res.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/role'],
    );
  }
  const removed = await asSession(t, owner)('DELETE', `/v1/users/${me}`);
  assert.equal(removed.status, 409);
  assert.equal(removed.body.code, 'last-owner');
  assert.deepEqual(await owners(owner), [me]);
  assert.equal((await asSession(t, owner)('GET', '/v1/session')).body.user.role, 'owner');
});

test('with a second owner, an owner may step down; the new role applies to their open session at once', async () => {
  const first = await ownerOf(await t.newTenant());
  const second = await inviteOwner(first);
  const res = await asSession(t, first)('PATCH', `/v1/users/${first.body.user.id}`, { body: { role: 'manager' } });
  assert.equal(res.status, 200, res.text);
  assert.equal((await asSession(t, first)('GET', '/v1/session')).body.user.role, 'manager');
  assert.equal((await asSession(t, first)('GET', '/v1/users')).status, 403, 'a manager no longer manages users');
  const back = await asSession(t, second)('PATCH', `/v1/users/${second.body.user.id}`, { body: { role: 'staff' } });
  assert.equal(back.body.code, 'last-owner', 'now the second is the last owner');
  // Self-removal stays refused even with another owner, with its own reason.
  const third = await inviteOwner(second);
  const self = await asSession(t, third)('DELETE', `/v1/users/${third.body.user.id}`);
  assert.equal(self.status, 409);
  assert.equal(self.body.code, 'conflict');
  assert.match(self.body.detail, /cannot remove yourself/);
});

test('two owners demoting each other at the same moment: one wins, the other gets last-owner, one owner stays', async () => {
  for (let round = 0; round < 5; round++) {
    const a = await ownerOf(await t.newTenant());
    const b = await inviteOwner(a);
    const [ab, ba] = await Promise.all([
      asSession(t, a)('PATCH', `/v1/users/${b.body.user.id}`, { body: { role: 'staff' } }),
      asSession(t, b)('PATCH', `/v1/users/${a.body.user.id}`, { body: { role: 'staff' } }),
    ]);
    assert.equal([ab, ba].filter((r) => r.status === 200).length, 1, `round ${round}: ${ab.text} / ${ba.text}`);
    // The loser was either still an owner when it asked (last-owner) or already demoted (forbidden).
    assert.ok(['last-owner', 'forbidden'].includes((ab.status === 200 ? ba : ab).body.code));
    const left = ab.status === 200 ? a : b;
    assert.deepEqual(await owners(left), [left.body.user.id], `round ${round}: exactly one owner remains`);
  }
});

test('an owner removing another owner while that one demotes them: the account still has an owner', async () => {
  for (let round = 0; round < 5; round++) {
    const a = await ownerOf(await t.newTenant());
    const b = await inviteOwner(a);
    const [removal, demotion] = await Promise.all([
      asSession(t, a)('DELETE', `/v1/users/${b.body.user.id}`),
      asSession(t, b)('PATCH', `/v1/users/${a.body.user.id}`, { body: { role: 'manager' } }),
    ]);
    assert.equal([removal, demotion].filter((r) => r.status === 200).length, 1, `round ${round}: ${removal.text} / ${demotion.text}`);
    const loser = removal.status === 200 ? demotion : removal;
    assert.ok(['last-owner', 'forbidden', 'unauthenticated'].includes(loser.body.code), loser.text);
    const survivor = removal.status === 200 ? a : b;
    assert.deepEqual(await owners(survivor), [survivor.body.user.id]);
  }
});
