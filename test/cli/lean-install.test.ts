// A lean release (scripts/release.sh --lean; decision 0070) has no OpenTelemetry SDK: nothing the
// service loads at start may need it, and OTEL_* set there gets one clear warning and an untraced
// service, never a stack trace. The release is simulated with a resolve hook that hides the
// packages it leaves out (helpers/without-tracing-packages.ts).
// One engine: its servers run on a data directory whatever the suite's engine; what is checked is what loads at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { owned } from '../helpers/child-processes.ts';
import { cliEnv, runCliJson } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';
import { eventually } from '../helpers/eventually.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LEAN = { NODE_OPTIONS: `--import=${path.join(ROOT, 'test/helpers/without-tracing-packages.ts')}` };

type Run = { logs: Array<Record<string, unknown>>; stderr: string; created: number };

/** `serve` on a lean install: started, a ticket created, stopped with SIGTERM; what it printed. */
async function serveLean(dir: string, key: string, env: Record<string, string>): Promise<Run> {
  const port = await freePort();
  const child = owned(
    spawn(path.join(ROOT, 'node_modules/.bin/node'), ['src/cli/main.ts', 'serve'], {
      cwd: ROOT,
      env: cliEnv({ ...LEAN, DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'info', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  let created = 0;
  try {
    await eventually(
      async () => {
        assert.ok(child.exitCode === null, `serve exited (${child.exitCode}): ${stderr}`);
        return (await fetch(`${url}/readyz`).catch(() => null))?.ok === true;
      },
      `serve to be ready (${stderr})`,
      20_000,
    );
    const res = await fetch(`${url}/v1/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ queue: 'A', external_ref: `lean-${port}` }),
    });
    created = res.status;
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  assert.equal(child.exitCode, 0, stderr);
  return {
    logs: stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
    stderr,
    created,
  };
}

test('without the tracing packages, serve starts and serves; OTEL_* then gets one warning and no traces', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-lean-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const demo = await runCliJson({ ...LEAN, DATA_DIR: dir }, ['demo']);
  const key = demo.keys.test as string;

  const plain = await serveLean(dir, key, {});
  assert.equal(plain.created, 201);
  assert.equal(plain.stderr, '');
  assert.deepEqual(
    plain.logs.filter((l) => (l.level as number) >= 40),
    [],
  );
  assert.equal(plain.logs.find((l) => l.msg === 'listening')?.tracing, false);

  const asked = await serveLean(dir, key, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  assert.equal(asked.created, 201);
  assert.equal(asked.stderr, '', 'no stack trace');
  const warnings = asked.logs.filter((l) => (l.level as number) >= 40);
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(
    String(warnings[0]!.msg),
    /^OTEL_\* asks for traces, but this install has no OpenTelemetry packages .*--lean.*running without tracing/,
  );
  assert.ok((warnings[0]!.missing as string[]).includes('@opentelemetry/sdk-node'), JSON.stringify(warnings[0]));
  assert.equal(asked.logs.find((l) => l.msg === 'listening')?.tracing, false);
});
