// The clients integrators generate from /v1/openapi.json work with the shared problem answers
// (issue 26): openapi-typescript's types, @hey-api/openapi-ts's SDK and orval's fetch client each compile (strict, with
// each operation's error body typed) and run the integrator guide's first steps against a real
// readybell: create, ready, list, and a read of a ticket that does not exist (404 not-found).
// One engine: the generated code's behaviour; the routes it calls are tested on both engines by their own files.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { createClient } from '@hey-api/openapi-ts';
import { generate as generateOrval } from 'orval';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typeErrors } from '../helpers/type-check.ts';

let t: TestApp;
let dir: string;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'readybell-clients-'));
  // The generated code is ES modules, run by Node as it is (type stripping).
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }');
  t = await startTestApp();
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

const served = async (): Promise<Record<string, unknown>> => (await t.request('GET', '/v1/openapi.json', { key: null })).body;

/** Runs an integrator's file against the test app; it prints what it saw as JSON. */
async function run(file: string): Promise<unknown> {
  const env = { ...process.env, READYBELL_URL: t.url, READYBELL_KEY: t.tenant.testKey };
  const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', file], { env, timeout: 30_000 });
  return JSON.parse(stdout);
}

const MISSING = 'tk_01m81j19a75aagw39z4av2ch96';

test('openapi-typescript: the types compile with each error body typed, and fetch runs create, ready, list and a 404', async () => {
  writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS((await served()) as never)));
  const file = path.join(dir, 'flow-openapi-typescript.ts');
  writeFileSync(
    file,
    `import type { paths } from './api.ts';
type CreateBody = NonNullable<paths['/v1/tickets']['post']['requestBody']>['content']['application/json'];
type Created = paths['/v1/tickets']['post']['responses'][201]['content']['application/json'];
type Ready = paths['/v1/tickets/{id}/ready']['post']['responses'][200]['content']['application/json'];
type List = paths['/v1/tickets']['get']['responses'][200]['content']['application/json'];
type Missing = paths['/v1/tickets/{id}']['get']['responses'][404]['content']['application/problem+json'];
// @ts-expect-error not a problem code
const wrong: Missing['code'] = 'oops';

const headers = { authorization: \`Bearer \${process.env.READYBELL_KEY}\`, 'content-type': 'application/json' };
async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(process.env.READYBELL_URL + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}
const body: CreateBody = { queue: 'A', external_ref: '1001' };
const created = await call<Created>('POST', '/v1/tickets', body);
const ready = await call<Ready>('POST', \`/v1/tickets/\${created.body.id}/ready\`, {});
const list = await call<List>('GET', '/v1/tickets');
const missing = await call<Missing>('GET', '/v1/tickets/${MISSING}');
console.log(JSON.stringify({
  created: created.body.status,
  ready: ready.body.ticket.status,
  listed: list.body.data.some((tk) => tk.id === created.body.id),
  missing: [missing.status, missing.body.code],
  wrong,
}));
`,
  );
  assert.deepEqual(typeErrors(file, { node: true }), []);
  assert.deepEqual(await run(file), { created: 'created', ready: 'ready', listed: true, missing: [404, 'not-found'], wrong: 'oops' });
});

test('@hey-api/openapi-ts: the SDK compiles with each error body typed, runs create, ready, list and a 404, and sends the key only as a bearer token', async () => {
  await createClient({
    input: (await served()) as never,
    output: { path: path.join(dir, 'hey'), importFileExtension: '.ts' },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    logs: { level: 'silent' },
  });
  const file = path.join(dir, 'flow-hey-api.ts');
  writeFileSync(
    file,
    `import { createClient } from './hey/client/index.ts';
import { createTicket, getTicket, listTickets, markTicketReady } from './hey/sdk.gen.ts';
import type { GetTicketErrors, MarkTicketReadyErrors } from './hey/types.gen.ts';
// @ts-expect-error not a problem code
const wrong: GetTicketErrors[404]['code'] = 'oops';
const conflict: MarkTicketReadyErrors[409]['code'] = 'ticket-state-conflict';

// Configured as an integrator would, with the key alone; every request's credentials are noted.
const sent = new Set<string>();
const client = createClient({
  baseUrl: process.env.READYBELL_URL!,
  auth: process.env.READYBELL_KEY,
  fetch: (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    for (const name of ['authorization', 'cookie', 'x-csrf-token']) if (request.headers.has(name)) sent.add(name);
    return fetch(request);
  },
});
const created = await createTicket({ client, body: { queue: 'A', external_ref: '1001' }, throwOnError: true });
const ready = await markTicketReady({ client, path: { id: created.data.id }, throwOnError: true });
const list = await listTickets({ client, throwOnError: true });
const missing = await getTicket({ client, path: { id: '${MISSING}' } });
console.log(JSON.stringify({
  created: created.data.status,
  ready: ready.data.ticket.status,
  listed: list.data.data.some((tk) => tk.id === created.data.id),
  missing: [missing.response?.status, missing.error?.code],
  wrong,
  conflict,
  sent: [...sent],
}));
`,
  );
  assert.deepEqual(typeErrors(file, { node: true }), []);
  assert.deepEqual(await run(file), {
    created: 'created',
    ready: 'ready',
    listed: true,
    missing: [404, 'not-found'],
    wrong: 'oops',
    conflict: 'ticket-state-conflict',
    // The key as a bearer token only: never as the staff session's cookie nor its CSRF header.
    sent: ['authorization'],
  });
});

test('orval: the fetch client compiles with each error body typed, and runs create, ready, list and a 404', async () => {
  const input = path.join(dir, 'openapi.json');
  writeFileSync(input, JSON.stringify(await served()));
  await generateOrval({
    input: { target: input },
    output: {
      target: path.join(dir, 'orval', 'api.ts'),
      client: 'fetch',
      mode: 'single',
      baseUrl: t.url,
      override: { fetch: { includeHttpResponseReturnType: true } },
    },
  });
  const file = path.join(dir, 'flow-orval.ts');
  writeFileSync(
    file,
    `import { createTicket, getTicket, listTickets, markTicketReady } from './orval/api.ts';
import type { getTicketResponse404 } from './orval/api.ts';
// @ts-expect-error not a problem code
const wrong: getTicketResponse404['data']['code'] = 'oops';

const options = { headers: { authorization: \`Bearer \${process.env.READYBELL_KEY}\` } };
const created = await createTicket({ queue: 'A', external_ref: '1001' }, options);
if (created.status !== 201) throw new Error(JSON.stringify(created));
const ready = await markTicketReady(created.data.id, {}, options);
if (ready.status !== 200) throw new Error(JSON.stringify(ready));
const list = await listTickets(undefined, options);
if (list.status !== 200) throw new Error(JSON.stringify(list));
const missing = await getTicket('${MISSING}', options);
console.log(JSON.stringify({
  created: created.data.status,
  ready: ready.data.ticket.status,
  listed: list.data.data.some((tk) => tk.id === created.data.id),
  missing: [missing.status, missing.status === 404 ? missing.data.code : null],
  wrong,
}));
`,
  );
  assert.deepEqual(typeErrors(file, { node: true }), []);
  assert.deepEqual(await run(file), { created: 'created', ready: 'ready', listed: true, missing: [404, 'not-found'], wrong: 'oops' });
});
