// The `readybell` command as an operator runs it: a separate process on the same configuration
// and store as the server (DATA_DIR, or DATABASE_URL when TEST_DATABASE_URL is set).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { owned } from '../helpers/child-processes.ts';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { openDb } from '../../src/store/open-db.ts';
import { listQueues, getAccount } from '../../src/store/tenancy.ts';
import { findUserByEmail } from '../../src/store/credentials.ts';
import { findSessionByTokenHash, insertSession } from '../../src/store/sessions.ts';
import { hashSessionToken, passwordStamp } from '../../src/domain/session-token.ts';
import { randomBytes } from 'node:crypto';
import { verifyPassword } from '../../src/domain/password-hash.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';
import { FakeClock } from '../helpers/clock.ts';
import { cliEnv, runCli, runCliJson, type CliRun } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

type Run = CliRun;

function cli(store: TestStore, args: string[], extra: Record<string, string> = {}): Promise<Run> {
  return runCli({ ...store.env, ...extra }, args);
}

function json(store: TestStore, args: string[]): Promise<any> {
  return runCliJson(store.env, args);
}

/** Answers GET /v1/branch with each key, from a server on the CLI's store. */
async function branchStatuses(store: TestStore, keys: string[]): Promise<Array<{ status: number; id?: string }>> {
  const app = await createApp(loadConfig({ LOG_LEVEL: 'silent', PORT: '0', ...store.env }));
  try {
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.server.address() as { port: number };
    return await Promise.all(
      keys.map(async (key) => {
        const res = await fetch(`http://127.0.0.1:${port}/v1/branch`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await res.json()) as { id?: string };
        return { status: res.status, id: body.id };
      }),
    );
  } finally {
    await app.close();
  }
}

let store: TestStore;
before(async () => {
  store = await createTestStore();
});
after(() => store.drop());

test('demo --json prints exactly the documented shape; a second call adds fresh keys and leaves the password alone; --reset-password sets one and signs the owner out, and says so', async () => {
  const first = await json(store, ['demo']);
  const shape = (o: any) => ({
    account: Object.keys(o.account),
    branch: Object.keys(o.branch).sort(),
    keys: Object.keys(o.keys).sort(),
    owner: Object.keys(o.owner).sort(),
    urls: Object.keys(o.urls).sort(),
    top: Object.keys(o).sort(),
  });
  assert.deepEqual(shape(first), {
    account: ['id'],
    branch: ['id', 'name'],
    keys: ['live', 'test'],
    owner: ['email', 'password'],
    urls: ['api', 'docs', 'staff'],
    top: ['account', 'branch', 'changes', 'keys', 'owner', 'urls'],
  });
  assert.match(first.account.id, /^acct_/);
  assert.match(first.branch.id, /^br_/);
  assert.match(first.keys.test, /^rk_test_/);
  assert.match(first.keys.live, /^rk_live_/);
  assert.equal(typeof first.owner.password, 'string');
  assert.equal(first.urls.api, 'http://localhost:3000/v1');
  assert.equal(first.urls.docs, 'http://localhost:3000/docs');
  assert.match(first.changes.join('\n'), /Created the demo account/);

  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  try {
    // The owner signed in somewhere: a later demo call must not end that session unasked.
    const owner = (await findUserByEmail(db, first.owner.email))!;
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await db.write((tx) =>
      insertSession(tx, {
        id: 'ses_demo_owner_device',
        tokenHash: hashSessionToken(token),
        userId: owner.id,
        accountId: owner.accountId,
        branchId: first.branch.id,
        passwordStamp: passwordStamp(owner.passwordHash),
        createdAt: now,
        lastSeenAt: now,
        expiresAt: now + 3600_000,
        revokedAt: null,
      }),
    );
    const session = async () => (await findSessionByTokenHash(db, hashSessionToken(token)))!;

    const second = await json(store, ['demo']);
    assert.equal(second.account.id, first.account.id);
    assert.equal(second.branch.id, first.branch.id);
    assert.notEqual(second.keys.test, first.keys.test);
    assert.notEqual(second.keys.live, first.keys.live);
    assert.equal(second.owner.password, null, 'the password is left alone unless asked');
    assert.match(second.changes.join('\n'), /Left the owner's password and sessions alone \(--reset-password/);
    assert.match(second.changes.join('\n'), /Issued a new test key and live key; earlier keys keep working/);
    assert.equal(await verifyPassword(first.owner.password, (await findUserByEmail(db, first.owner.email))!.passwordHash), true);
    assert.equal((await session()).revokedAt, null);

    const human = await cli(store, ['demo']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /owner@demo\.readybell\.test, password unchanged/);
    assert.match(human.stdout, /Left the owner's password and sessions alone/);

    const third = await json(store, ['demo', '--reset-password']);
    assert.equal(typeof third.owner.password, 'string');
    assert.match(third.changes.join('\n'), /Set a new owner password; signed the owner out of 1 session\./);
    const stored = (await findUserByEmail(db, first.owner.email))!;
    assert.equal(await verifyPassword(third.owner.password, stored.passwordHash), true);
    assert.equal(await verifyPassword(first.owner.password, stored.passwordHash), false);
    assert.notEqual((await session()).revokedAt, null, 'and it said so');
    assert.equal((await getAccount(db, first.account.id))?.plan, 'pro');
    assert.deepEqual(
      (await listQueues(db, first.branch.id)).map((q) => q.name),
      ['A'],
    );

    const answers = await branchStatuses(store, [first.keys.test, first.keys.live, second.keys.test, second.keys.live, third.keys.test]);
    assert.deepEqual(answers, Array(5).fill({ status: 200, id: first.branch.id }));
  } finally {
    await db.close();
  }
});

test('accounts, branches, keys and users: create with --json, change plans, revoke keys', async () => {
  const account = await json(store, ['accounts', 'create', '--name', 'Pho 24', '--plan', 'pro']);
  assert.deepEqual(Object.keys(account).sort(), ['id', 'name', 'plan']);
  assert.match(account.id, /^acct_/);
  assert.deepEqual([account.name, account.plan], ['Pho 24', 'pro']);

  const branch = await json(store, ['branches', 'create', '--account', account.id, '--name', 'Old Town', '--timezone', 'Asia/Ho_Chi_Minh']);
  assert.deepEqual(Object.keys(branch).sort(), ['id', 'name', 'timezone']);
  assert.match(branch.id, /^br_/);
  assert.deepEqual([branch.name, branch.timezone], ['Old Town', 'Asia/Ho_Chi_Minh']);
  const utc = await json(store, ['branches', 'create', '--account', account.id, '--name', 'Airport']);
  assert.equal(utc.timezone, 'UTC');

  const testKey = await json(store, ['keys', 'create', '--branch', branch.id, '--mode', 'test', '--name', 'till 1']);
  assert.deepEqual(Object.keys(testKey).sort(), ['branch', 'id', 'key', 'mode']);
  assert.match(testKey.id, /^key_/);
  // Letters and digits only (a double-click selects the whole key), at least 160 random bits: 27 carry 160.7.
  assert.match(testKey.key, /^rk_test_[A-Za-z0-9]{27,}$/);
  assert.deepEqual([testKey.mode, testKey.branch], ['test', branch.id]);
  const liveKey = await json(store, ['keys', 'create', '--branch', branch.id, '--mode', 'live']);
  assert.match(liveKey.key, /^rk_live_[A-Za-z0-9]{27,}$/);

  const user = await json(store, ['users', 'create', '--account', account.id, '--email', 'Chef@Pho24.example', '--role', 'manager']);
  assert.deepEqual(Object.keys(user).sort(), ['email', 'id', 'password', 'role']);
  assert.match(user.id, /^usr_/);
  assert.deepEqual([user.email, user.role], ['chef@pho24.example', 'manager']);
  assert.ok(user.password.length >= 10);
  const chosen = await json(store, [
    'users',
    'create',
    '--account',
    account.id,
    '--email',
    'till@pho24.example',
    '--role',
    'staff',
    '--password',
    'long enough secret',
  ]);
  assert.equal(chosen.password, 'long enough secret');

  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  try {
    assert.deepEqual(
      (await listQueues(db, branch.id)).map((q) => q.name),
      ['A'],
    );
  } finally {
    await db.close();
  }
  assert.deepEqual(
    (await branchStatuses(store, [testKey.key, liveKey.key])).map((a) => a.status),
    [200, 200],
  );

  assert.equal((await cli(store, ['accounts', 'set-plan', account.id, 'free'])).code, 0);
  assert.deepEqual(
    (await branchStatuses(store, [testKey.key])).map((a) => a.status),
    [403],
  );
  assert.equal((await cli(store, ['accounts', 'set-plan', account.id, 'business'])).code, 0);

  const revoked = await cli(store, ['keys', 'revoke', testKey.id]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.deepEqual(
    (await branchStatuses(store, [testKey.key, liveKey.key])).map((a) => a.status),
    [401, 200],
  );
  const again = await cli(store, ['keys', 'revoke', testKey.id]);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /No active key/);
});

test('a key revoked and a plan changed with the CLI apply to a running server from its very next request', async () => {
  const account = await json(store, ['accounts', 'create', '--name', 'Counter', '--plan', 'pro']);
  const branch = await json(store, ['branches', 'create', '--account', account.id, '--name', 'Main']);
  const [revoked, kept] = [
    await json(store, ['keys', 'create', '--branch', branch.id, '--mode', 'live']),
    await json(store, ['keys', 'create', '--branch', branch.id, '--mode', 'live']),
  ];
  const clock = new FakeClock(Date.now());
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', ...store.env });
  const app = await createApp(config, { clock });
  try {
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.server.address() as { port: number };
    const status = async (key: string): Promise<number> => {
      const res = await fetch(`http://127.0.0.1:${port}/v1/branch`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      return res.status;
    };
    // On PostgreSQL without Redis nothing reaches the server from the CLI's process: the cached
    // key is honoured until API_KEY_CACHE_MS has passed (README), so that is when it must fail.
    const untold = () => {
      if (config.databaseUrl !== null && config.redisUrl === null) clock.advance(config.apiKeyCacheMs);
    };
    assert.deepEqual([await status(revoked.key), await status(kept.key)], [200, 200], 'both keys verified and cached');

    const r = await cli(store, ['keys', 'revoke', revoked.id]);
    assert.equal(r.code, 0, r.stderr);
    untold();
    assert.equal(await status(revoked.key), 401);
    assert.equal(await status(kept.key), 200);

    assert.equal((await cli(store, ['accounts', 'set-plan', account.id, 'free'])).code, 0);
    untold();
    assert.equal(await status(kept.key), 403, 'the free plan has no API access');
  } finally {
    await app.close();
  }
});

test('bad arguments print a clear message and exit non-zero', async () => {
  const cases: Array<[string[], RegExp]> = [
    [[], /readybell serve/],
    [['frobnicate'], /Unknown command "frobnicate"/],
    [['accounts', 'create', '--plan', 'pro'], /--name is required/],
    [['accounts', 'create', '--name', 'X', '--plan', 'gold'], /Plan must be one of free, pro, business/],
    [['accounts', 'create', '--name', 'X', '--plan', 'pro', '--colour', 'red'], /Unknown option '--colour'/],
    [['accounts', 'set-plan', 'acct_nope', 'pro'], /No account acct_nope/],
    [['accounts', 'set-plan'], /Usage: readybell accounts set-plan/],
    [['branches', 'create', '--account', 'acct_nope', '--name', 'X'], /No account acct_nope/],
    [['keys', 'create', '--branch', 'br_nope', '--mode', 'test'], /No branch br_nope/],
    [['keys', 'revoke'], /Usage: readybell keys revoke/],
    [['users', 'create', '--account', 'acct_nope', '--email', 'not-an-email', '--role', 'owner'], /not an email address/],
  ];
  // Independent commands, run side by side: each costs a process start.
  const runs = await Promise.all(cases.map(([args]) => cli(store, args)));
  for (const [i, [args, message]] of cases.entries()) {
    const r = runs[i]!;
    assert.notEqual(r.code, 0, `readybell ${args.join(' ')} exited 0`);
    assert.match(r.stderr + r.stdout, message, `readybell ${args.join(' ')}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
  const account = await json(store, ['accounts', 'create', '--name', 'Y', '--plan', 'pro']);
  const tz = await cli(store, ['branches', 'create', '--account', account.id, '--name', 'X', '--timezone', 'Moon/Base']);
  assert.notEqual(tz.code, 0);
  assert.match(tz.stderr, /IANA time zone/);
  const branch = await json(store, ['branches', 'create', '--account', account.id, '--name', 'X']);
  const mode = await cli(store, ['keys', 'create', '--branch', branch.id, '--mode', 'prod']);
  assert.notEqual(mode.code, 0);
  assert.match(mode.stderr, /Mode must be live or test/);
  const role = await cli(store, ['users', 'create', '--account', account.id, '--email', 'a@b.example', '--role', 'chef']);
  assert.match(role.stderr, /Role must be one of owner, manager, staff/);
  assert.equal((await cli(store, ['--help'])).code, 0);
});

test('a bad environment value stops the command with the configuration problem', async () => {
  const r = await cli(store, ['migrate'], { PORT: 'abc', LOG_LEVEL: 'loud' });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /Invalid configuration/);
  assert.match(r.stderr, /PORT must be a whole number from 0 to 65535 \(got "abc"\)/);
  assert.match(r.stderr, /LOG_LEVEL must be one of/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('migrate applies nothing on a migrated store', async () => {
  const r = await json(store, ['migrate']);
  assert.deepEqual(r, { applied: [] });
});

test('serve --demo (npm start) on an empty store prints where to go, answers /readyz and exits 0 on SIGTERM; readybell demo from another shell prints its URLs', async () => {
  const empty = await createTestStore();
  let stop = (): void => {};
  try {
    const port = await freePort();
    const child = owned(
      spawn(NODE, ['src/cli/main.ts', 'serve', '--demo'], {
        cwd: ROOT,
        env: cliEnv({ ...empty.env, PORT: String(port), LOG_LEVEL: 'info' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    // A failed assertion must not leave the server running (and the test runner waiting for it).
    stop = () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('"msg":"listening"')) resolve();
      });
      void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    assert.match(stdout, /readybell is running at http:\/\/localhost:/);
    assert.match(stdout, /\/docs/);
    assert.match(stdout, /owner@demo\.readybell\.test/);
    const key = /rk_test_[A-Za-z0-9_-]+/.exec(stdout)?.[0];
    assert.ok(key, 'the test key is printed');

    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200);
    const branch = await fetch(`http://127.0.0.1:${port}/v1/branch`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(branch.status, 200);
    await branch.arrayBuffer();
    assert.match(stdout, new RegExp(`API: +http://localhost:${port}/v1\n`));
    const password = /owner@demo\.readybell\.test \/ ([^\s;)]+)/.exec(stdout)?.[1];
    assert.ok(password, 'the owner password is printed');

    // Another shell, without the server's PORT: the URLs are still the running server's.
    const again = await json(empty, ['demo']);
    assert.deepEqual(again.urls, {
      api: `http://localhost:${port}/v1`,
      staff: `http://localhost:${port}/staff`,
      docs: `http://localhost:${port}/docs`,
    });
    assert.equal(again.owner.password, null);
    const fresh = await fetch(`http://127.0.0.1:${port}/v1/branch`, { headers: { authorization: `Bearer ${again.keys.live}` } });
    assert.equal(fresh.status, 200, 'its fresh key works on the running server');
    await fresh.arrayBuffer();
    const signIn = await fetch(`http://127.0.0.1:${port}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@demo.readybell.test', password }),
    });
    assert.equal(signIn.status, 201, 'the password npm start printed still signs in');
    await signIn.arrayBuffer();
    const told = await cli(empty, ['demo', '--json'], { PUBLIC_URL: 'https://pickup.example.test' });
    assert.equal(JSON.parse(told.stdout).urls.api, 'https://pickup.example.test/v1', "the command's own PUBLIC_URL wins");

    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    assert.match(stdout, /"msg":"shutting down"/);
    // The key was shown to the operator on the terminal, never in a log line.
    for (const line of stdout.split('\n').filter((l) => l.startsWith('{'))) assert.ok(!line.includes(key!), line);
  } finally {
    stop();
    await empty.drop();
  }
});
