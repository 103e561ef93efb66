// The integrator client `@readybell/client` (packages/client): its types are what the generator
// makes from the served document now, and it drives a ticket's life against a real readybell,
// sending a fresh Idempotency-Key on every write, retrying what the API says to retry with that
// same key, and raising problems as ReadybellError with their `code`.
// One engine: the typed client's own behaviour (keys, retries, errors); the routes it calls are tested on both engines by their own files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient, ReadybellError, type Client } from '../../packages/client/src/index.js';
import { EVENTS_DIR, eventTypesOf, generateClientTypes, SCHEMA_FILE } from '../../scripts/build-client.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const clock = new FakeClock();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

type Sent = { method: string; url: string; idempotencyKey: string | null };

/** A client on the test app whose requests are recorded as they leave. */
function recordingClient(key: string): { client: Client; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = createClient({
    baseUrl: t.url,
    apiKey: key,
    fetch: async (input, init) => {
      sent.push({ method: init?.method ?? 'GET', url: String(input), idempotencyKey: new Headers(init?.headers).get('idempotency-key') });
      return fetch(input, init);
    },
  });
  return { client, sent };
}

test('the committed schema.d.ts is what scripts/build-client.ts generates from the served document now', async () => {
  assert.equal(
    readFileSync(SCHEMA_FILE, 'utf8'),
    await generateClientTypes(),
    'run `node scripts/build-client.ts` and commit packages/client/src/schema.d.ts',
  );
});

test("the verifier's committed event types (src/webhooks/events/) are the event schemas of schema.d.ts, all it reaches and nothing else", () => {
  const events = eventTypesOf(readFileSync(SCHEMA_FILE, 'utf8'));
  const committed = new Map(readdirSync(EVENTS_DIR).map((name) => [name, readFileSync(path.join(EVENTS_DIR, name), 'utf8')]));
  assert.deepEqual(committed, events, 'run `node scripts/build-client.ts` and commit src/webhooks/events/');
  const kept = [...events.keys()];
  assert.ok(kept.includes('event.ts') && kept.includes('ticket-rung-event.ts') && kept.includes('ticket.ts'), kept.join(' '));
  assert.ok(!kept.includes('problem.ts') && !kept.includes('branch.ts'), kept.join(' '));
  for (const [name, text] of events) assert.ok(text.split('\n').length <= 400, `${name} is over 400 lines`);
});

test('create, ready, ring again and collect through the client, each write with its own fresh Idempotency-Key', async () => {
  const { client, sent } = recordingClient(t.tenant.testKey);
  const { data: ticket, response } = await client.POST('/v1/tickets', { body: { queue: 'A', external_ref: '1001' } });
  assert.equal(response.status, 201);
  assert.equal(ticket.status, 'created');
  assert.equal(ticket.external_ref, '1001');
  const id = ticket.id;

  const { data: ready } = await client.POST('/v1/tickets/{id}/ready', { params: { path: { id } } });
  assert.equal(ready.ticket.status, 'ready');
  clock.advance(10_000); // a ticket is rung again at most once per 10 s
  const { data: again } = await client.POST('/v1/tickets/{id}/ring', { params: { path: { id } } });
  assert.equal(again.ticket.status, 'ready');
  const { data: collected } = await client.POST('/v1/tickets/{id}/collect', { params: { path: { id } } });
  assert.equal(collected.status, 'collected');
  const { data: read } = await client.GET('/v1/tickets/{id}', { params: { path: { id } } });
  assert.equal(read.status, 'collected');

  assert.deepEqual(
    sent.map((s) => `${s.method} ${new URL(s.url).pathname}`),
    [
      'POST /v1/tickets',
      `POST /v1/tickets/${id}/ready`,
      `POST /v1/tickets/${id}/ring`,
      `POST /v1/tickets/${id}/collect`,
      `GET /v1/tickets/${id}`,
    ],
  );
  const keys = sent.filter((s) => s.method === 'POST').map((s) => s.idempotencyKey);
  for (const key of keys) assert.match(key ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(new Set(keys).size, 4, 'a fresh key per write');
  assert.equal(sent.at(-1)?.idempotencyKey, null, 'no key on a read');
});

test("a refusal surfaces as ReadybellError with the problem's code: collecting twice is ticket-state-conflict", async () => {
  const { client } = recordingClient(t.tenant.testKey);
  const { data: ticket } = await client.POST('/v1/tickets');
  await client.POST('/v1/tickets/{id}/collect', { params: { path: { id: ticket.id } } });
  const err = await client.POST('/v1/tickets/{id}/collect', { params: { path: { id: ticket.id } } }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ReadybellError, String(err));
  assert.equal(err.status, 409);
  assert.equal(err.code, 'ticket-state-conflict');
  assert.match(err.detail ?? '', /collected/);
  assert.match(err.requestId ?? '', /\S/);

  const missing = await client.GET('/v1/tickets/{id}', { params: { path: { id: 'tk_01m81j19a75aagw39z4av2ch96' } } }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(missing instanceof ReadybellError);
  assert.equal(missing.code, 'not-found');
});

test("the real ring cooldown's 429 is waited out (its Retry-After) and retried with the same Idempotency-Key", async () => {
  const waits: number[] = [];
  const sent: Sent[] = [];
  const client = createClient({
    baseUrl: t.url,
    apiKey: t.tenant.testKey,
    sleep: async (ms) => {
      waits.push(ms);
      clock.advance(ms);
    },
    fetch: async (input, init) => {
      sent.push({ method: init?.method ?? 'GET', url: String(input), idempotencyKey: new Headers(init?.headers).get('idempotency-key') });
      return fetch(input, init);
    },
  });
  const { data: ticket } = await client.POST('/v1/tickets');
  await client.POST('/v1/tickets/{id}/ready', { params: { path: { id: ticket.id } } });
  const { data: again } = await client.POST('/v1/tickets/{id}/ring', { params: { path: { id: ticket.id } } });
  assert.equal(again.ticket.status, 'ready');
  const rings = sent.filter((s) => s.url.endsWith('/ring'));
  assert.equal(rings.length, 2, 'refused once (rung less than 10 s ago), then accepted');
  assert.equal(rings[0]?.idempotencyKey, rings[1]?.idempotencyKey);
  assert.equal(waits.length, 1);
  assert.ok(waits[0]! >= 1000 && waits[0]! <= 10_000, `waited ${waits[0]} ms, as Retry-After said`);
});

/** A local server answering each request with the next of `answers`, recording what came. */
async function scripted(
  answers: Array<{ status: number; headers?: Record<string, string>; body: unknown }>,
): Promise<{ url: string; keys: Array<string | undefined>; server: Server }> {
  const keys: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    keys.push(req.headers['idempotency-key'] as string | undefined);
    const answer = answers[Math.min(keys.length - 1, answers.length - 1)]!;
    res.writeHead(answer.status, {
      'content-type': answer.status >= 400 ? 'application/problem+json' : 'application/json',
      ...answer.headers,
    });
    req.resume();
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`, keys, server };
}

const problem = (status: number, code: string) => ({
  type: `/problems/${code}`,
  title: code,
  status,
  detail: code,
  code,
  request_id: 'req_1',
});

test('a 429 is retried after its Retry-After with the same Idempotency-Key, and so are idempotency-key-in-use and a 5xx', async () => {
  const created = { object: 'ticket', id: 'tk_01m81j19a75aagw39z4av2ch96', status: 'created' };
  const s = await scripted([
    { status: 429, headers: { 'retry-after': '7' }, body: problem(429, 'rate-limited') },
    { status: 409, body: problem(409, 'idempotency-key-in-use') },
    { status: 503, body: problem(503, 'unavailable') },
    { status: 201, body: created },
  ]);
  try {
    const waits: number[] = [];
    const client = createClient({ baseUrl: s.url, apiKey: 'rk_test_x', sleep: async (ms) => void waits.push(ms) });
    const { data } = await client.POST('/v1/tickets', { body: { queue: 'A' } });
    assert.deepEqual(data, created);
    assert.equal(s.keys.length, 4);
    assert.match(s.keys[0] ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(new Set(s.keys).size, 1, "every attempt carries the first attempt's key");
    assert.equal(waits[0], 7000, 'waited as long as Retry-After said');
    assert.equal(waits.length, 3);
  } finally {
    s.server.close();
  }
});

test('retries are bounded, and a refusal that a retry cannot fix is not retried', async () => {
  const busy = await scripted([{ status: 503, body: problem(503, 'unavailable') }]);
  const refused = await scripted([{ status: 400, body: problem(400, 'validation-failed') }]);
  try {
    const sleep = async () => {};
    const err = await createClient({ baseUrl: busy.url, maxAttempts: 3, sleep })
      .POST('/v1/tickets')
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof ReadybellError);
    assert.equal(err.code, 'unavailable');
    assert.equal(busy.keys.length, 3);
    const bad = await createClient({ baseUrl: refused.url, sleep })
      .POST('/v1/tickets')
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(bad instanceof ReadybellError);
    assert.equal(bad.code, 'validation-failed');
    assert.equal(refused.keys.length, 1);
  } finally {
    busy.server.close();
    refused.server.close();
  }
});

test('a network failure or timeout is retried with the same key', async () => {
  const s = await scripted([{ status: 201, body: { object: 'ticket' } }]);
  try {
    let calls = 0;
    const client = createClient({
      baseUrl: s.url,
      sleep: async () => {},
      fetch: async (input, init) => {
        if (++calls === 1) throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
        return fetch(input, init);
      },
    });
    const sentKey = 'order-1001-create';
    await client.POST('/v1/tickets', { headers: { 'Idempotency-Key': sentKey } });
    assert.equal(calls, 2);
    assert.deepEqual(s.keys, [sentKey], "the caller's own key is kept");
  } finally {
    s.server.close();
  }
});

test('the package installs offline from `npm pack` and works from node_modules', async () => {
  const run = promisify(execFile);
  const project = mkdtempSync(path.join(tmpdir(), 'readybell-client-'));
  try {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'packages/client/package.json'), 'utf8')) as { version: string; license: string };
    assert.equal(pkg.license, 'MIT');
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'pos', private: true, type: 'module' }));
    await run('npm', ['pack', './packages/client', '--pack-destination', project], { cwd: ROOT });
    await run('npm', ['install', `./readybell-client-${pkg.version}.tgz`, '--offline', '--no-audit', '--no-fund'], { cwd: project });
    writeFileSync(
      path.join(project, 'pos.mjs'),
      `
import { createClient, ReadybellError } from '@readybell/client';
const client = createClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
const { data } = await client.POST('/v1/tickets', { body: { external_ref: '1001' } });
await client.POST('/v1/tickets/{id}/cancel', { params: { path: { id: data.id } } });
const err = await client.POST('/v1/tickets/{id}/ready', { params: { path: { id: data.id } } }).catch((e) => e);
console.log(JSON.stringify({ status: data.status, error: err instanceof ReadybellError ? err.code : String(err) }));
`,
    );
    const out = await run(process.execPath, ['pos.mjs', t.url, t.tenant.testKey], { cwd: project });
    assert.deepEqual(JSON.parse(out.stdout), { status: 'created', error: 'ticket-state-conflict' });
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

// Never called: type-checked by `tsc` (test/ is in the project), so the types must refuse these.
export function typesRefuseWhatTheApiWould(client: Client): void {
  // @ts-expect-error not a path of the API
  void client.GET('/v1/nope');
  // @ts-expect-error a path parameter is required
  void client.POST('/v1/tickets/{id}/ready');
  // @ts-expect-error queue is a string
  void client.POST('/v1/tickets', { body: { queue: 1 } });
  // @ts-expect-error no DELETE on tickets
  void client.DELETE('/v1/tickets');
  void client.POST('/v1/tickets').then(({ data }) => {
    // @ts-expect-error status is an enum
    if (data.status === 'eaten') return;
  });
}
