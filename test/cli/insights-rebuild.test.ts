// `readybell insights rebuild`: an operator recomputes a branch's insights from its tickets, on
// whichever store the run uses, for history from before the rollups (here: rollups deleted, as
// after an upgrade from a version without them).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { openDb } from '../../src/store/open-db.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';
import { FakeClock } from '../helpers/clock.ts';

let store: TestStore;
before(async () => {
  store = await createTestStore();
});
after(() => store.drop());

// 10:00 UTC two days before the command runs (with the real clock): hours the rebuild recomputes,
// all within one day in Paris.
const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
const clock = new FakeClock(Date.UTC(twoDaysAgo.getUTCFullYear(), twoDaysAgo.getUTCMonth(), twoDaysAgo.getUTCDate(), 10));

async function withApp<T>(fn: (app: App) => Promise<T>): Promise<T> {
  const app = await createApp(
    loadConfig({ LOG_LEVEL: 'silent', PORT: '0', PUBLIC_URL: 'http://localhost:3000', SHED_EVENT_LOOP_DELAY_MS: '0', ...store.env }),
    { clock },
  );
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}

async function call(app: App, key: string, method: 'GET' | 'POST', url: string): Promise<any> {
  const res = await app.server.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${key}`,
      ...(method === 'POST' ? { 'idempotency-key': randomUUID(), 'content-type': 'application/json' } : {}),
    },
    payload: method === 'POST' ? '{}' : undefined,
  });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

test("rebuild recomputes a branch's insights from its tickets, and says what it did", async () => {
  const day = new Date(clock.now()).toISOString().slice(0, 10);
  const q = `/v1/insights/days?from=${day}&to=${day}`;
  const { branchId, key, counted } = await withApp(async (app) => {
    const { branchId, key } = await app.services.db.write(async (tx) => {
      const account = await createAccount(tx, { name: 'Rebuilt', plan: 'pro' }, clock.now());
      const branch = await createBranch(tx, { accountId: account.id, name: 'Rebuilt', timezone: 'Europe/Paris' }, clock.now());
      return { branchId: branch.id, key: (await createApiKey(tx, { branchId: branch.id, mode: 'live' }, clock.now())).key };
    });
    for (let i = 0; i < 3; i++) {
      const ticket = await call(app, key, 'POST', '/v1/tickets');
      clock.advance(7 * 60_000);
      await call(app, key, 'POST', `/v1/tickets/${ticket.id}/ready`);
      clock.advance(2 * 60_000);
      if (i < 2) await call(app, key, 'POST', `/v1/tickets/${ticket.id}/collect`);
    }
    return { branchId, key, counted: await call(app, key, 'GET', q) };
  });
  assert.equal(counted.data[0].figures.created, 3);

  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  await db.write((tx) => tx.run('DELETE FROM insight_hours WHERE branch_id = $1', [branchId]));
  await db.close();
  assert.equal((await withApp((app) => call(app, key, 'GET', q))).data[0].figures.created, 0, 'the rollups are gone');

  const out = await runCliJson(store.env, ['insights', 'rebuild', '--branch', branchId]);
  assert.equal(out.branch, branchId);
  assert.deepEqual(
    out.modes.map((m: any) => [m.mode, m.tickets, m.rings]),
    [
      ['live', 3, 3],
      ['test', 0, 0],
    ],
  );
  assert.equal(typeof out.seconds, 'number');
  assert.deepEqual(await withApp((app) => call(app, key, 'GET', q)), counted, 'the same figures as counted live');

  const human = await runCli(store.env, ['insights', 'rebuild', '--branch', branchId, '--mode', 'live']);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /^Rebuilt the insights of br_\S+ in [\d.]+ s, every hour before \d{4}-\d\d-\d\d \d\d:00 \(branch time\)/);
  assert.match(human.stdout, /live: 3 tickets, 3 rings, 0 snoozes/);
  assert.deepEqual(await withApp((app) => call(app, key, 'GET', q)), counted, 'a second rebuild changes nothing');
});

test('rebuild refuses what it cannot do, saying why', async () => {
  const missing = await runCli(store.env, ['insights', 'rebuild']);
  assert.deepEqual([missing.code, missing.stderr.trim()], [1, 'error: --branch is required.']);
  const unknown = await runCli(store.env, ['insights', 'rebuild', '--branch', 'br_nope']);
  assert.deepEqual([unknown.code, unknown.stderr.trim()], [1, 'error: No branch br_nope.']);
  const mode = await runCli(store.env, ['insights', 'rebuild', '--branch', 'br_nope', '--mode', 'staging']);
  assert.deepEqual([mode.code, mode.stderr.trim()], [1, 'error: --mode is live or test.']);
});
