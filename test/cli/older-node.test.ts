// readybell needs Node 24. On an older Node (the system's, here, when it is older) the command says
// so in words, and the commands docs/operations.md and docs/cli.md document for a checkout still work as written: the
// backup cron line, and `bin/readybell.js serve` under a process manager, whose SIGTERM reaches the
// server (issue #25). Skipped, with the reason, where no older Node is installed.
// One engine: its servers run on a data directory of their own whatever the suite's engine; the check is of Node, not of the store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { olderNode } from '../helpers/older-node.ts';
import { owned } from '../helpers/child-processes.ts';
import { runProcess } from '../helpers/cli.ts';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/free-port.ts';
import { eventually } from '../helpers/eventually.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const older = olderNode();
const skip = older === null ? 'no Node older than 24 is installed on this machine' : false;

/** A shell environment whose `node` is the older one, as cron's or systemd's PATH would give. */
function olderNodeEnv(dir: string, extra: Record<string, string>): Record<string, string> {
  const bin = path.join(dir, 'path');
  mkdirSync(bin);
  symlinkSync(older!.bin, path.join(bin, 'node'));
  return { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, LOG_LEVEL: 'silent', ...extra };
}

const run = runProcess;

test('without the pinned Node, bin/readybell.js on an older Node says which Node it needs', { skip }, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-old-node-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A copy of the command where no node_modules holds the pinned Node (a release on an old machine).
  mkdirSync(path.join(dir, 'bin'));
  copyFileSync(path.join(ROOT, 'bin/readybell.js'), path.join(dir, 'bin/readybell.js'));
  // An ES module, as readybell's own.
  copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  const r = await run(older!.bin, [path.join(dir, 'bin/readybell.js'), 'demo'], { cwd: dir, env: { PATH: '/usr/bin:/bin' } });
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.stderr.startsWith(`readybell needs Node 24 or later (this is ${older!.version}).\n`), r.stderr);
  assert.doesNotMatch(r.stderr, /ERR_UNKNOWN_FILE_EXTENSION|at .*\(/, 'no stack trace');
});

test("the documented backup cron line works as written where the system's node is older", { skip }, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-old-node-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cron = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('0 * * * *'));
  assert.ok(cron, 'docs/operations.md has a crontab line');
  // The line's command up to the copy elsewhere, with the documented paths put here.
  const command = cron
    .replace(/^0 \* \* \* \*\s+/, '')
    .replace(/ && rsync .*$/, '')
    .replaceAll('/opt/readybell', ROOT)
    .replaceAll('/var/lib/readybell', path.join(dir, 'data'))
    .replaceAll('/var/backups/readybell', dir);
  assert.match(command, /bin\/readybell\.js backup /);
  const env = olderNodeEnv(dir, {});
  const migrate = await run('sh', ['-c', `cd ${ROOT} && DATA_DIR=${path.join(dir, 'data')} bin/readybell.js migrate`], { cwd: dir, env });
  assert.equal(migrate.code, 0, migrate.stderr);
  const backup = await run('sh', ['-c', command], { cwd: dir, env });
  assert.equal(backup.code, 0, `${command}\n${backup.stderr}`);
  assert.equal(readdirSync(dir).filter((f) => /^hour-\d\d\.db$/.test(f)).length, 1, "the hour's copy was written");
});

test('`bin/readybell.js serve` under a process manager whose node is older: it serves, and SIGTERM stops it gracefully', {
  skip,
}, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-old-node-'));
  const port = await freePort();
  const env = olderNodeEnv(dir, { DATA_DIR: path.join(dir, 'data'), PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  // Its own process group, so that the server it starts on the pinned Node is stopped with it
  // whatever happens (a process manager's cgroup does that for a service).
  const child = owned(
    spawn(path.join(ROOT, 'bin/readybell.js'), ['serve'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    }),
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<[number | null, string | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
  t.after(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  });
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status === 200,
    `the server to answer (${stderr})`,
    30_000,
  );
  child.kill('SIGTERM');
  assert.deepEqual(await exited, [0, null], stderr);
});
