// Authentication and plans on /v1 (PRODUCT.md §5): what an integrator sees for every kind of
// wrong or withdrawn credential, and that the key itself never reaches the logs.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { findApiKeyByHash, insertApiKey, revokeApiKey } from '../../src/store/credentials.ts';
import { newId } from '../../src/domain/ids.ts';
import { setAccountPlan } from '../../src/store/tenancy.ts';
import { hashApiKey } from '../../src/domain/secrets.ts';

const logLines: string[] = [];
let t: TestApp;
before(async () => {
  // trace: the most a misconfigured operator could log; the key must stay out even then.
  t = await startTestApp({ env: { LOG_LEVEL: 'trace' }, logDestination: { write: (line: string) => void logLines.push(line) } });
});
after(() => t.close());

function assertProblem(res: Res, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, code);
  assert.equal(res.body.type, `/problems/${code}`);
  assert.equal(res.body.request_id, res.headers.get('request-id'));
}

async function revoke(key: string): Promise<void> {
  const record = await findApiKeyByHash(t.app.services.db, hashApiKey(key));
  assert.ok(record);
  assert.equal(await t.app.services.db.write((tx) => revokeApiKey(tx, record.id, Date.now())), true);
}

test('no Authorization header: 401 unauthenticated with a Bearer challenge', async () => {
  const res = await t.request('GET', '/v1/branch', { key: null });
  assertProblem(res, 401, 'unauthenticated');
  assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
});

test('malformed or empty Authorization headers: 401 unauthenticated with a Bearer challenge', async () => {
  const headers = [
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    'rk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    'Bearer sk_test_aaaaaaaaaaaaaaaaaaaaaaaa',
    'Bearer rk_prod_aaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    `Bearer ${t.tenant.testKey} extra`,
  ];
  for (const authorization of headers) {
    const res = await t.request('GET', '/v1/branch', { key: null, headers: { authorization } });
    assertProblem(res, 401, 'unauthenticated');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/, authorization);
  }
});

test('a key with the right prefix but cut short, too long or mangled: 401 invalid-api-key saying what is wrong', async () => {
  const full = t.tenant.testKey;
  const cases: Array<[string, RegExp]> = [
    ['rk_test_short', /after rk_test_ a key has 32 letters and digits, and this one has 5/],
    [full.slice(0, -1), /after rk_test_ a key has 32 letters and digits, and this one has 31/],
    [`${full}X`, /and this one has 33/],
    [`rk_live_${'a'.repeat(200)}`, /after rk_live_ a key has 32 letters and digits, and this one has 200/],
    ['rk_test_', /this one has 0/],
    [`rk_test_${'a'.repeat(30)}.,`, /after rk_test_ a key has only letters and digits/],
  ];
  for (const [key, detail] of cases) {
    const res = await t.request('GET', '/v1/branch', { key: null, headers: { authorization: `Bearer ${key}` } });
    assertProblem(res, 401, 'invalid-api-key');
    assert.match(res.body.detail, detail, key);
    assert.doesNotMatch(res.body.detail, /malformed/, key);
  }
  // A full-length key that is not known keeps the plain answer.
  assert.equal(
    (await t.request('GET', '/v1/branch', { key: `rk_test_${'A'.repeat(32)}` })).body.detail,
    'This API key is unknown or has been revoked.',
  );
});

test('writes are refused before anything happens when unauthenticated', async () => {
  const res = await t.request('POST', '/v1/tickets', { key: null, body: { queue: 'A' } });
  assertProblem(res, 401, 'unauthenticated');
  const list = await t.request('GET', '/v1/tickets');
  assert.equal(list.body.data.length, 0);
});

test('an unknown key of the right shape: 401 invalid-api-key', async () => {
  const res = await t.request('GET', '/v1/branch', { key: `rk_test_${'A'.repeat(32)}` });
  assertProblem(res, 401, 'invalid-api-key');
});

test('a key issued in the earlier base64url form, with - and _, still authenticates', async () => {
  const key = 'rk_test_Ab-_9zQ-x_Y2kL7m-Np_Rs4tUv-W';
  assert.match(key, /[-_].*[-_]/);
  const now = Date.now();
  await t.app.services.db.write((tx) =>
    insertApiKey(tx, {
      id: newId('key', now),
      accountId: t.tenant.accountId,
      branchId: t.tenant.branchId,
      mode: 'test',
      name: 'old format',
      hash: hashApiKey(key),
      last4: key.slice(-4),
      createdAt: now,
      revokedAt: null,
      lastUsedAt: null,
    }),
  );
  const res = await t.request('GET', '/v1/branch', { key });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.id, t.tenant.branchId);
});

test('a key whose mode prefix was changed is unknown, not a key of the other mode', async () => {
  const forged = t.tenant.testKey.replace(/^rk_test_/, 'rk_live_');
  assertProblem(await t.request('GET', '/v1/branch', { key: forged }), 401, 'invalid-api-key');
});

test('a revoked key stops working on the very next request; other keys keep working', async () => {
  const tenant = await t.newTenant();
  assert.equal((await t.request('GET', '/v1/branch', { key: tenant.testKey })).status, 200);
  await revoke(tenant.testKey);
  assertProblem(await t.request('GET', '/v1/branch', { key: tenant.testKey }), 401, 'invalid-api-key');
  assertProblem(await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: {} }), 401, 'invalid-api-key');
  assert.equal((await t.request('GET', '/v1/branch', { key: tenant.liveKey })).status, 200);
});

test('a free account gets 403 plan-required, and a plan change is honoured on the next request', async () => {
  const tenant = await t.newTenant({ plan: 'free' });
  const res = await t.request('GET', '/v1/branch', { key: tenant.testKey });
  assertProblem(res, 403, 'plan-required');
  assert.equal(res.headers.get('www-authenticate'), null);
  assertProblem(await t.request('POST', '/v1/tickets', { key: tenant.liveKey, body: {} }), 403, 'plan-required');

  await t.app.services.db.write((tx) => setAccountPlan(tx, tenant.accountId, 'pro'));
  const upgraded = await t.request('GET', '/v1/branch', { key: tenant.testKey });
  assert.equal(upgraded.status, 200);
  assert.equal(upgraded.body.plan, 'pro');

  await t.app.services.db.write((tx) => setAccountPlan(tx, tenant.accountId, 'free'));
  assertProblem(await t.request('GET', '/v1/branch', { key: tenant.testKey }), 403, 'plan-required');
});

test('the business plan includes the API', async () => {
  const tenant = await t.newTenant({ plan: 'business' });
  const res = await t.request('GET', '/v1/branch', { key: tenant.liveKey });
  assert.equal(res.status, 200);
  assert.equal(res.body.plan, 'business');
});

test('test and live keys of one branch see separate data', async () => {
  const tenant = await t.newTenant();
  const created = await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { external_ref: 'test-order' } });
  assert.equal(created.status, 201);
  assert.equal(created.body.livemode, false);

  const liveList = await t.request('GET', '/v1/tickets', { key: tenant.liveKey });
  assert.equal(liveList.status, 200);
  assert.deepEqual(liveList.body.data, []);
  assertProblem(await t.request('GET', `/v1/tickets/${created.body.id}`, { key: tenant.liveKey }), 404, 'not-found');
  assertProblem(await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key: tenant.liveKey }), 404, 'not-found');

  const live = await t.request('POST', '/v1/tickets', { key: tenant.liveKey, body: {} });
  assert.equal(live.body.livemode, true);
  // Numbering is per mode too: the live ticket is A-1 although a test ticket exists.
  assert.equal(live.body.display_number, 'A-1');
  const testList = await t.request('GET', '/v1/tickets', { key: tenant.testKey });
  assert.deepEqual(
    testList.body.data.map((x: { id: string }) => x.id),
    [created.body.id],
  );
  assert.equal((await t.request('GET', `/v1/tickets/${created.body.id}`, { key: tenant.testKey })).body.status, 'created');
});

test("another branch's key sees neither the branch nor its tickets", async () => {
  const a = await t.newTenant();
  const b = await t.newTenant();
  const ticket = await t.request('POST', '/v1/tickets', { key: a.testKey, body: {} });
  assertProblem(await t.request('GET', `/v1/tickets/${ticket.body.id}`, { key: b.testKey }), 404, 'not-found');
  assert.equal((await t.request('GET', '/v1/branch', { key: b.testKey })).body.id, b.branchId);
});

test('no log line holds an API key, whatever was sent and however it failed', async () => {
  const tenant = await t.newTenant();
  const unknown = `rk_live_${'Z'.repeat(32)}`;
  await t.request('GET', '/v1/branch', { key: tenant.testKey });
  await t.request('POST', '/v1/tickets', { key: tenant.liveKey, raw: '{broken', headers: { 'content-type': 'application/json' } });
  await t.request('GET', '/v1/branch', { key: unknown });
  await t.request('GET', '/v1/branch', { key: null, headers: { authorization: `Token ${tenant.testKey}` } });
  // A key misplaced into the URL, as happens with copy-pasted curl commands.
  await t.request('GET', `/v1/tickets?api_key=${tenant.testKey}`, { key: null });
  await t.request('GET', `/v1/${tenant.liveKey}`, { key: null });

  assert.ok(logLines.length > 0, 'the app logged nothing at trace level');
  const all = logLines.join('');
  for (const key of [tenant.testKey, tenant.liveKey, unknown]) {
    assert.equal(all.includes(key), false, `a log line contains ${key.slice(0, 8)}…`);
    // Not even the random part without its prefix.
    assert.equal(all.includes(key.slice(8)), false);
  }
  // The misplaced keys were logged, redacted, and the lines are JSON with the request id: the
  // redaction did not just drop the logging.
  assert.ok(all.includes('rk_test_[redacted]') && all.includes('rk_live_[redacted]'));
  const parsed = logLines.map((l) => JSON.parse(l) as { reqId?: string });
  assert.ok(parsed.some((l) => typeof l.reqId === 'string' && l.reqId.startsWith('req_')));
});

test("last_used_at records a key's use once the background flush runs, not the keys left unused", async () => {
  const tenant = await t.newTenant();
  const db = t.app.services.db;
  const live = await findApiKeyByHash(db, hashApiKey(tenant.liveKey));
  assert.equal(live?.lastUsedAt, null);
  assert.equal((await t.request('GET', '/v1/branch', { key: tenant.liveKey })).status, 200);
  await t.app.maintenance.flushLastUsed();
  assert.equal(typeof (await findApiKeyByHash(db, hashApiKey(tenant.liveKey)))?.lastUsedAt, 'number');
  assert.equal((await findApiKeyByHash(db, hashApiKey(tenant.testKey)))?.lastUsedAt, null);
});
