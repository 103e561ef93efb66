// The tools integrators point at /v1/openapi.json accept it: Redocly's linter (recommended
// rules: no error) and openapi-typescript, whose types a typed client is built on.
// One engine: the document is built from the route schemas, not from the store.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { typeErrors } from '../helpers/type-check.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const require = createRequire(import.meta.url);
let t: TestApp;
let dir: string;
before(async () => {
  t = await startTestApp();
  dir = mkdtempSync(path.join(tmpdir(), 'readybell-openapi-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const served = async (): Promise<Record<string, unknown>> => (await t.request('GET', '/v1/openapi.json', { key: null })).body;

type LintProblem = { ruleId: string; severity: 'error' | 'warn'; message: string; location: Array<{ pointer: string }> };

test('@redocly/cli lint with the recommended rules finds no error in the served document', async (ctx) => {
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(await served()));
  const cli = path.join(path.dirname(require.resolve('@redocly/cli/package.json')), 'bin/cli.js');
  // Offline and quiet: no telemetry, no update check.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const run = await promisify(execFile)(
    process.execPath,
    [cli, 'lint', file, '--extends', 'recommended', '--format', 'json', '--max-problems', '1000'],
    { env, cwd: dir },
  ).catch((err: { stdout: string; stderr: string }) => err);
  const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: LintProblem[] };
  const describe = (p: LintProblem) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`;
  for (const warning of report.problems.filter((p) => p.severity === 'warn')) ctx.diagnostic(`warning: ${describe(warning)}`);
  assert.deepEqual(report.problems.filter((p) => p.severity === 'error').map(describe), []);
  assert.equal(report.totals.errors, 0);
  // The warnings left, each for a reason: the service is proprietary (no licence to name), and
  // the tests' PUBLIC_URL is localhost (an operator's is its real address).
  const expected = new Set(['info-license', 'no-server-example.com']);
  assert.deepEqual(report.problems.filter((p) => !expected.has(p.ruleId)).map(describe), []);
});

test('openapi-typescript generates typed operations and webhooks from it, usable by a client', async () => {
  const types = astToString(await openapiTS((await served()) as never));
  const block = (name: string) => new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(types)?.[1] ?? '';
  assert.match(block('operations'), /\bcreateTicket: \{/);
  assert.match(block('operations'), /\bmarkTicketReady: \{/);
  assert.match(block('webhooks'), /"ticket\.rung": \{/);
  assert.doesNotMatch(types, /export type operations = Record<string, never>/);
  assert.doesNotMatch(types, /export type webhooks = Record<string, never>/);
  // Half its size (issue 26): each problem answer is typed once, in components["responses"], and
  // each object answered by several operations once, in components["schemas"] (issue 36).
  const lines = types.split('\n').length;
  assert.ok(lines <= 8_000, `openapi-typescript made ${lines} lines`);
  assert.match(block('operations'), /409: components\["responses"\]\["E409InUseStateWrite"\];/);

  // What a client would write type-checks; what the API would refuse does not.
  const usage = `
    import type { components, operations, webhooks } from './api.ts';
    type Created = operations['createTicket']['responses'][201]['content']['application/json'];
    type Body = NonNullable<operations['createTicket']['requestBody']>['content']['application/json'];
    type Ready = operations['markTicketReady']['responses'][200]['content']['application/json'];
    type Rung = webhooks['ticket.rung']['post']['requestBody']['content']['application/json'];
    type Problem = components['schemas']['Problem'];
    // Each operation's problem answers are typed, through the shared answer it refers to.
    type ReadyConflict = operations['markTicketReady']['responses'][409]['content']['application/problem+json'];
    type ReadyConflictHeaders = operations['markTicketReady']['responses'][409]['headers'];
    const conflict: ReadyConflict['code'] = 'ticket-state-conflict';
    const retryAfter: ReadyConflictHeaders['Retry-After'] = 3;
    const body: Body = { queue: 'A', external_ref: '1001' };
    const status: Created['status'] = 'ready';
    const channel: Ready['channel_used'] = 'unknown';
    const reason: Rung['data']['ring']['reason'] = 'snooze_end';
    const code: Problem['code'] = 'ticket-state-conflict';
    // @ts-expect-error not a ticket status
    const wrongStatus: Created['status'] = 'done';
    // @ts-expect-error not a problem code
    const wrongCode: Problem['code'] = 'oops';
    // @ts-expect-error createTicket has no 404: it names no object
    type NoSuchAnswer = operations['createTicket']['responses'][404]['content'];
    export { body, status, channel, reason, code, wrongStatus, wrongCode, conflict, retryAfter };
    export type { NoSuchAnswer };
  `;
  writeFileSync(path.join(dir, 'api.ts'), types);
  writeFileSync(path.join(dir, 'usage.ts'), usage);
  const errors = typeErrors(path.join(dir, 'usage.ts'));
  assert.deepEqual(errors, []);
});
