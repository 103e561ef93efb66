// What `readybell serve` says at start (issue #25): a port already taken is answered with the
// setting that moves it (PORT, METRICS_PORT), not a bare EADDRINUSE; a start with METRICS_PORT
// prints no Fastify deprecation warning (FSTDEP023).
// One engine: its servers run on a data directory whatever the suite's engine; the checks are of ports and start-up messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { owned } from '../helpers/child-processes.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliEnv, runCli } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('a port already in use: the message names it and says to set PORT (or METRICS_PORT), and nothing is left running', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-port-'));
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    taken.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const port = (taken.address() as { port: number }).port;
  const http = await runCli({ DATA_DIR: dir, PORT: String(port) }, ['serve']);
  assert.equal(http.code, 1, http.stderr);
  assert.match(http.stderr, new RegExp(`^error: Port ${port} on 127\\.0\\.0\\.1 is already in use .*set PORT to a free port`));
  const metrics = await runCli({ DATA_DIR: dir, PORT: '0', METRICS_PORT: String(port) }, ['serve']);
  assert.equal(metrics.code, 1, metrics.stderr);
  assert.match(metrics.stderr, /set METRICS_PORT to a free port/);
});

test('serve with METRICS_PORT starts without a deprecation warning', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-metrics-'));
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = owned(
    spawn(path.join(ROOT, 'node_modules/.bin/node'), ['src/cli/main.ts', 'serve'], {
      cwd: ROOT,
      env: cliEnv({ DATA_DIR: dir, PORT: String(port), METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  t.after(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => null))?.status === 200,
    `the metrics listener (${output})`,
    30_000,
  );
  child.kill('SIGTERM');
  await exited;
  assert.doesNotMatch(output, /FSTDEP023|DeprecationWarning|FastifyDeprecation/);
});
