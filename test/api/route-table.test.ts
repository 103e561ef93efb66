// Every route is mounted from the route table (src/http/route-table.ts, decision 0028): each
// mounted route belongs to one of its groups, the /v1 ones to the API or sign-in, and a route
// added anywhere else stops the server before it listens.
// One engine: which routes are mounted, and how, does not depend on the store.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestStore } from '../helpers/store.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { mountedRoutes, ROUTE_TABLE } from '../../src/http/route-table.ts';
import { registeredRoutes } from '../helpers/routes.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the route table accounts for every route the server has, each in one group', () => {
  const mounted = mountedRoutes(t.app.server);
  const tree = registeredRoutes(t.app.server.printRoutes({ commonPrefix: false }))
    .map((r) => `${r.method} ${r.path}`)
    .sort();
  assert.deepEqual(mounted.map((r) => `${r.method} ${r.url}`).sort(), tree, 'what the table recorded is what Fastify routes');
  for (const group of ROUTE_TABLE)
    assert.ok(
      mounted.some((r) => r.scope === group.scope),
      `the ${group.scope} group mounts routes`,
    );
});

test("the /v1 routes are the API's, sign-in's and sign-up's, each with its documented access", () => {
  for (const r of mountedRoutes(t.app.server).filter((m) => m.url.startsWith('/v1/') && m.url !== '/v1/openapi.json')) {
    const label = `${r.method} ${r.url}`;
    if (r.scope === 'sign-in' || r.scope === 'sign-up') {
      assert.equal(r.access, 'public', label);
      continue;
    }
    assert.equal(r.scope, 'api', label);
    assert.ok(r.access === 'api' || r.access === 'staff', `${label}: ${r.access}`);
  }
  const signIn = mountedRoutes(t.app.server).filter((r) => r.scope === 'sign-in' && r.method !== 'HEAD');
  assert.deepEqual(
    signIn.map((r) => `${r.method} ${r.url}`),
    ['POST /v1/sessions'],
    'sign-in is the one /v1 operation of its scope',
  );
  const signUp = mountedRoutes(t.app.server).filter((r) => r.scope === 'sign-up' && r.method !== 'HEAD');
  assert.deepEqual(
    signUp.map((r) => `${r.method} ${r.url}`).sort(),
    ['GET /v1/signup', 'POST /v1/password_resets', 'POST /v1/password_resets/complete', 'POST /v1/signup', 'POST /v1/signup/verify'],
    'besides sign-in, only sign-up, its verification and the password reset are outside the authenticated scope',
  );
});

test('a route added outside the route table stops the server at start', async () => {
  const store = await createTestStore();
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', SHED_EVENT_LOOP_DELAY_MS: '0', ...store.env });
  const app = await createApp(config);
  try {
    app.server.get('/v1/backdoor', async () => ({ ok: true }));
    await assert.rejects(app.listen(), /Routes mounted outside src\/http\/route-table\.ts: GET \/v1\/backdoor/);
  } finally {
    await app.close();
    await store.drop();
  }
});
