// `readybell users reset-password` (issue 36 item 13): an only owner who forgot the password had no
// way back. The operator's command sets a new one, printed once or read from stdin, and ends every
// session of the user; the old password no longer signs in, the new one does.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import { findUserByEmail } from '../../src/store/credentials.ts';
import { findSessionByTokenHash, insertSession } from '../../src/store/sessions.ts';
import { hashSessionToken, passwordStamp } from '../../src/domain/session-token.ts';
import { verifyPassword } from '../../src/domain/password-hash.ts';
import { owned } from '../helpers/child-processes.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';
import { cliEnv, runCli } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let store: TestStore;
before(async () => {
  store = await createTestStore();
});
after(() => store?.drop());

/** The CLI with `input` on its stdin. */
function runWithStdin(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = owned(
      spawn(`${ROOT}node_modules/.bin/node`, ['src/cli/main.ts', ...args], {
        cwd: ROOT,
        env: cliEnv(store.env),
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

test('users reset-password: a new password printed once, the old one refused, every session ended; or one read from stdin', async () => {
  const account = JSON.parse(
    (await runCli(store.env, ['accounts', 'create', '--name', 'Forgetful Café', '--plan', 'pro', '--json'])).stdout,
  );
  const branch = JSON.parse(
    (await runCli(store.env, ['branches', 'create', '--account', account.id, '--name', 'Main Street', '--json'])).stdout,
  );
  const created = await runCli(store.env, [
    'users',
    'create',
    '--account',
    account.id,
    '--email',
    'only-owner@forgetful.example',
    '--role',
    'owner',
    '--json',
  ]);
  assert.equal(created.code, 0, created.stderr);
  const old = JSON.parse(created.stdout).password as string;

  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  try {
    const owner = (await findUserByEmail(db, 'only-owner@forgetful.example'))!;
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await db.write((tx) =>
      insertSession(tx, {
        id: 'ses_forgetful_owner',
        tokenHash: hashSessionToken(token),
        userId: owner.id,
        accountId: owner.accountId,
        branchId: branch.id,
        passwordStamp: passwordStamp(owner.passwordHash),
        createdAt: now,
        lastSeenAt: now,
        expiresAt: now + 3600_000,
        revokedAt: null,
      }),
    );

    const reset = await runCli(store.env, ['users', 'reset-password', '--email', 'Only-Owner@forgetful.example']);
    assert.equal(reset.code, 0, reset.stderr);
    const printed = /^New password for only-owner@forgetful\.example: (\S+) \(pass it on once\); signed out of 1 session\.$/m.exec(
      reset.stdout,
    );
    assert.ok(printed, reset.stdout);
    const fresh = printed[1]!;
    const after1 = (await findUserByEmail(db, owner.email))!;
    assert.ok(await verifyPassword(fresh, after1.passwordHash), 'the printed password signs in');
    assert.ok(!(await verifyPassword(old, after1.passwordHash)), 'the forgotten one no longer does');
    assert.notEqual((await findSessionByTokenHash(db, hashSessionToken(token)))!.revokedAt, null, 'the session ended');

    const chosen = 'a long chosen passphrase';
    const piped = await runWithStdin(['users', 'reset-password', '--email', owner.email, '--password-stdin', '--json'], `${chosen}\n`);
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual(
      JSON.parse(piped.stdout),
      { id: owner.id, email: owner.email, sessionsEnded: 0 },
      'a password read from stdin is not printed',
    );
    assert.ok(await verifyPassword(chosen, (await findUserByEmail(db, owner.email))!.passwordHash));
  } finally {
    await db.close();
  }

  const unknown = await runCli(store.env, ['users', 'reset-password', '--email', 'nobody@forgetful.example']);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /No user with email nobody@forgetful\.example/);
  const short = await runWithStdin(['users', 'reset-password', '--email', 'only-owner@forgetful.example', '--password-stdin'], 'short\n');
  assert.notEqual(short.code, 0);
  assert.match(short.stderr, /at least 10 characters/);
});
