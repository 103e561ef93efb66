// `readybell accounts|branches|keys|users list`: an operator finds the id to revoke or change,
// on whichever store the run uses (DATA_DIR, or DATABASE_URL when TEST_DATABASE_URL is set).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { hashApiKey } from '../../src/domain/secrets.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await createTestStore();
});
after(() => store.drop());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Uses each key once against a server on the store, then stops it (which records last use). */
async function useKeys(keys: string[]): Promise<number[]> {
  const app = await createApp(loadConfig({ LOG_LEVEL: 'silent', PORT: '0', ...store.env }));
  try {
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.server.address() as { port: number };
    return await Promise.all(
      keys.map(async (key) => {
        const res = await fetch(`http://127.0.0.1:${port}/v1/branch`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        return res.status;
      }),
    );
  } finally {
    await app.close();
  }
}

test('accounts, branches, keys and users list what the other commands change or revoke, with --json', async () => {
  const env = store.env;
  const account = await runCliJson(env, ['accounts', 'create', '--name', 'Bánh Mì Bar', '--plan', 'pro']);
  const other = await runCliJson(env, ['accounts', 'create', '--name', 'Elsewhere', '--plan', 'free']);
  const branch = await runCliJson(env, ['branches', 'create', '--account', account.id, '--name', 'Quay', '--timezone', 'Europe/Paris']);
  const used = await runCliJson(env, ['keys', 'create', '--branch', branch.id, '--mode', 'live', '--name', 'till 1']);
  const idle = await runCliJson(env, ['keys', 'create', '--branch', branch.id, '--mode', 'test']);
  const gone = await runCliJson(env, ['keys', 'create', '--branch', branch.id, '--mode', 'test', '--name', 'old till']);
  const owner = await runCliJson(env, ['users', 'create', '--account', account.id, '--email', 'owner@banhmi.example', '--role', 'owner']);
  assert.deepEqual(await useKeys([used.key]), [200]);
  assert.equal((await runCli(env, ['keys', 'revoke', gone.id])).code, 0);

  const accounts = await runCliJson(env, ['accounts', 'list']);
  const mine = accounts.filter((a: any) => a.id === account.id || a.id === other.id);
  assert.deepEqual(
    mine.map((a: any) => ({ ...a, created_at: ISO.test(a.created_at) })),
    [
      { id: account.id, name: 'Bánh Mì Bar', plan: 'pro', created_at: true, billing: null, trial_end: null },
      { id: other.id, name: 'Elsewhere', plan: 'free', created_at: true, billing: null, trial_end: null },
    ],
  );

  const branches = await runCliJson(env, ['branches', 'list', '--account', account.id]);
  assert.deepEqual(
    branches.map((b: any) => ({ ...b, created_at: ISO.test(b.created_at) })),
    [{ id: branch.id, account: account.id, name: 'Quay', timezone: 'Europe/Paris', created_at: true }],
  );
  assert.deepEqual(await runCliJson(env, ['branches', 'list', '--account', other.id]), []);

  const keys = await runCliJson(env, ['keys', 'list', '--branch', branch.id]);
  const byId = new Map(keys.map((k: any) => [k.id, k]));
  assert.equal(keys.length, 3);
  assert.deepEqual(Object.keys(keys[0]).sort(), ['branch', 'created_at', 'id', 'last4', 'last_used_at', 'mode', 'name', 'revoked_at']);
  const u = byId.get(used.id) as any;
  assert.deepEqual([u.name, u.mode, u.branch, u.last4], ['till 1', 'live', branch.id, used.key.slice(-4)]);
  assert.match(u.last_used_at, ISO, 'a key used against the server shows when');
  assert.equal(u.revoked_at, null);
  const i = byId.get(idle.id) as any;
  assert.deepEqual([i.name, i.mode, i.last4, i.last_used_at, i.revoked_at], [null, 'test', idle.key.slice(-4), null, null]);
  const g = byId.get(gone.id) as any;
  assert.match(g.revoked_at, ISO);
  assert.match(g.created_at, ISO);

  const users = await runCliJson(env, ['users', 'list', '--account', account.id]);
  assert.deepEqual(
    users.map((x: any) => ({ ...x, created_at: ISO.test(x.created_at) })),
    [{ id: owner.id, email: 'owner@banhmi.example', role: 'owner', created_at: true }],
  );

  // The human tables name the same things, and neither form ever shows a key or its hash.
  const human = await runCli(env, ['keys', 'list', '--branch', branch.id]);
  assert.equal(human.code, 0, human.stderr);
  const lines = human.stdout.trim().split('\n');
  assert.match(lines[0]!, /^ID\s+MODE\s+LAST 4\s+CREATED \(UTC\)\s+LAST USED\s+REVOKED\s+NAME$/);
  assert.match(
    human.stdout,
    new RegExp(`${used.id}\\s+live\\s+…${used.key.slice(-4)}\\s+\\S+ \\S+\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+-\\s+till 1`),
  );
  assert.match(human.stdout, new RegExp(`${idle.id}\\s+test\\s+…${idle.key.slice(-4)}\\s+\\S+ \\S+\\s+never\\s+-`));
  assert.match(human.stdout, new RegExp(`${gone.id}\\s+test\\s+.*never\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+old till`));
  for (const key of [used.key, idle.key, gone.key]) {
    for (const out of [human.stdout, JSON.stringify(keys)]) {
      assert.ok(!out.includes(key), 'no full key');
      assert.ok(!out.includes(hashApiKey(key)), 'no key hash');
    }
  }
  for (const [args, shows] of [
    [['accounts', 'list'], account.id],
    [['branches', 'list', '--account', account.id], 'Europe/Paris'],
    [['users', 'list', '--account', account.id], 'owner@banhmi.example'],
  ] as Array<[string[], string]>) {
    const r = await runCli(env, args);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(shows), `readybell ${args.join(' ')} shows ${shows}`);
  }
});

test('list commands name what is missing or unknown, and exit non-zero', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['keys', 'list'], /--branch is required: readybell keys list --branch ID/],
    [['branches', 'list'], /--account is required/],
    [['users', 'list'], /--account is required/],
    [['keys', 'list', '--branch', 'br_nope'], /No branch br_nope/],
    [['branches', 'list', '--account', 'acct_nope'], /No account acct_nope/],
    [['users', 'list', '--account', 'acct_nope'], /No account acct_nope/],
  ];
  const runs = await Promise.all(cases.map(([args]) => runCli(store.env, args)));
  for (const [i, [args, message]] of cases.entries()) {
    assert.notEqual(runs[i]!.code, 0, `readybell ${args.join(' ')} exited 0`);
    assert.match(runs[i]!.stderr, message);
    assert.doesNotMatch(runs[i]!.stderr, /\n\s+at /);
  }
  const account = await runCliJson(store.env, ['accounts', 'create', '--name', 'Empty', '--plan', 'pro']);
  const none = await runCli(store.env, ['branches', 'list', '--account', account.id]);
  assert.equal(none.code, 0);
  assert.equal(none.stdout.trim(), `No branches in account ${account.id}.`);
});
