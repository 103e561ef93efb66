// One `readybell serve` per embedded data directory (issue 25 item 2, decision 0045): a second
// server on the same DATA_DIR is refused at start, naming the directory and the running process,
// and pointing to PostgreSQL for many nodes; the short commands (backup, lists, demo) still work
// beside the running server; and a server killed outright never blocks the next start. The lock
// belongs to the embedded store, so this file runs on its own data directory in both store passes.
// One engine: the lock is the embedded store's, and its servers run on a data directory whatever the suite's engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { owned } from '../helpers/child-processes.ts';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

type Serve = { child: ChildProcess; port: number; stderr: () => string; exited: Promise<number | null> };

function startServe(env: Record<string, string>, port: number): Serve {
  const child = owned(
    spawn(NODE, ['src/cli/main.ts', 'serve'], {
      cwd: ROOT,
      env: cliEnv({ ...env, PORT: String(port) }),
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, port, stderr: () => stderr, exited };
}

async function ready(s: Serve): Promise<void> {
  const gone = s.exited.then((code) => {
    throw new Error(`serve exited ${code} before it was ready: ${s.stderr()}`);
  });
  gone.catch(() => {});
  for (let i = 0; i < 400; i++) {
    const ok = await Promise.race([
      fetch(`http://127.0.0.1:${s.port}/readyz`).then(
        (r) => r.ok,
        () => false,
      ),
      gone,
    ]);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('serve was not ready within 20 s');
}

async function kill(s: Serve, signal: NodeJS.Signals): Promise<number | null> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill(signal);
  return s.exited;
}

test('a second serve on the same data directory is refused, naming the directory and the running server; the short commands still work beside it; a SIGKILLed server does not block the next start', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'readybell-lock-'));
  const env = { DATA_DIR: dataDir };
  const started: Serve[] = [];
  try {
    const first = startServe(env, await freePort());
    started.push(first);
    await ready(first);

    const secondPort = await freePort();
    const second = startServe(env, secondPort);
    started.push(second);
    // Without the lock it would start and serve: then this fails at once instead of waiting.
    const outcome = await Promise.race([
      second.exited.then((code) => `exited ${code}`),
      ready(second).then(
        () => 'started',
        () => 'exited',
      ),
    ]);
    assert.equal(outcome, 'exited 1', second.stderr());
    const message = second.stderr();
    assert.ok(message.includes(dataDir), message);
    assert.ok(message.includes(`process ${first.child.pid}`), message);
    assert.ok(message.includes(`port ${first.port}`), message);
    assert.match(message, /PostgreSQL \(DATABASE_URL\)/);
    assert.equal(
      await fetch(`http://127.0.0.1:${secondPort}/readyz`).then(
        () => 'answered',
        () => 'nothing',
      ),
      'nothing',
    );

    // The operator's other commands open the store beside the running server, as before.
    const demo = await runCliJson(env, ['demo']);
    assert.equal((await runCli(env, ['backup', path.join(dataDir, 'copy.db')])).code, 0);
    assert.equal((await runCliJson(env, ['accounts', 'list'])).length, 1);
    const branch = await fetch(`http://127.0.0.1:${first.port}/v1/branch`, { headers: { authorization: `Bearer ${demo.keys.live}` } });
    assert.equal(branch.status, 200, 'the first server serves on');
    await branch.arrayBuffer();

    // Killed outright (no shutdown, nothing released by the process itself): the next start is not blocked.
    assert.equal(await kill(first, 'SIGKILL'), null);
    const third = startServe(env, await freePort());
    started.push(third);
    await ready(third);
    const again = await fetch(`http://127.0.0.1:${third.port}/v1/branch`, { headers: { authorization: `Bearer ${demo.keys.live}` } });
    assert.equal(again.status, 200);
    await again.arrayBuffer();
    assert.equal(await kill(third, 'SIGTERM'), 0, third.stderr());

    // Stopped cleanly, the directory is free again.
    const fourth = startServe(env, await freePort());
    started.push(fourth);
    await ready(fourth);
  } finally {
    await Promise.all(started.map((s) => kill(s, 'SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
