// Slow clients (PRODUCT.md §5): a request whose headers or body do not arrive in full within
// REQUEST_TIMEOUT_MS is answered 408 with a problem document and closed, on every route, signed
// in or not; a live stream, whose request is complete, stays open past that time.
// One engine: Node's request timeouts, before any handler reads the store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openPage, pathOf } from '../helpers/live.ts';

const TIMEOUT_MS = 300;
// Far past the timeout and Node's check of it: a connection still open then was never cut.
const GIVE_UP_MS = 5000;

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
});
after(() => t.close());

function socketTo(): Promise<Socket> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => resolve(s));
    s.on('error', reject);
  });
}

/** Writes `bytes` and stops; resolves with everything the server sent until it closed, or null if it never did. */
async function stall(bytes: string): Promise<{ answer: string; ms: number } | null> {
  const socket = await socketTo();
  const started = performance.now();
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString()));
  socket.write(bytes);
  const closed = new Promise<'closed'>((resolve) => socket.on('close', () => resolve('closed')));
  const outcome = await Promise.race([closed, sleep(GIVE_UP_MS, 'open' as const)]);
  socket.destroy();
  return outcome === 'closed' ? { answer, ms: performance.now() - started } : null;
}

/** A POST announcing `body`'s length and sending only its first half. */
function halfBody(path: string, body: string, headers: Record<string, string>): string {
  const head = Object.entries({ host: '127.0.0.1', 'content-length': String(Buffer.byteLength(body)), ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `POST ${path} HTTP/1.1\r\n${head}\r\n${body.slice(0, Math.floor(body.length / 2))}`;
}

function assertTimedOut(got: { answer: string; ms: number } | null, what: string): void {
  assert.ok(got !== null, `${what}: still open after ${GIVE_UP_MS} ms`);
  assert.ok(got.ms >= TIMEOUT_MS - 50, `${what}: cut after ${got.ms} ms, before the timeout`);
  const [head, body] = got.answer.split('\r\n\r\n');
  assert.match(head ?? '', /^HTTP\/1\.1 408 /, what);
  assert.match(head!, /\r\ncontent-type: application\/problem\+json/i, what);
  const p = JSON.parse(body!);
  assert.deepEqual([p.status, p.code, p.type], [408, 'request-timeout', '/problems/request-timeout'], what);
  assert.equal(p.request_id, /\r\nrequest-id: (req_[\w-]+)/i.exec(head!)?.[1], what);
}

test('a body that never finishes is answered 408 and closed: sign-in, customer buttons, keyed API writes', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const json = { 'content-type': 'application/json' };
  const cases: Array<[string, string]> = [
    [
      'unauthenticated sign-in',
      halfBody('/v1/sessions', JSON.stringify({ email: 'owner@example.test', password: 'correct horse battery' }), json),
    ],
    [
      'customer page button',
      halfBody(`${pathOf(tk.url)}/acknowledge`, 'unused=1&more=2', { 'content-type': 'application/x-www-form-urlencoded' }),
    ],
    [
      'keyed create',
      halfBody('/v1/tickets', JSON.stringify({ queue: 'A', external_ref: 'slow-1' }), {
        ...json,
        authorization: `Bearer ${t.tenant.testKey}`,
        'idempotency-key': 'slow-create',
      }),
    ],
  ];
  const answers = await Promise.all(cases.map(([, bytes]) => stall(bytes)));
  for (const [i, [what]] of cases.entries()) assertTimedOut(answers[i]!, what);

  // The stalled create did nothing and left its key free: sent in full, it creates the ticket.
  const retry = await t.request('POST', '/v1/tickets', {
    body: { queue: 'A', external_ref: 'slow-1' },
    headers: { 'idempotency-key': 'slow-create' },
  });
  assert.equal(retry.status, 201, retry.text);
  assert.equal(retry.headers.get('idempotent-replayed'), null);
});

test('headers that never finish are answered 408 and closed', async () => {
  assertTimedOut(await stall('POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl'), 'half a header block');
});

test('a live stream stays open long past the request timeout and still delivers', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const page = await openPage(t, tk.url);
  try {
    await sleep(TIMEOUT_MS * 4);
    const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
    assert.equal(ready.body.rang, true, 'the page, still connected, confirmed the ring');
    assert.equal((await page.next('ring')).data.reason, 'ready');
  } finally {
    page.close();
  }
});

test('an idle keep-alive connection is not a slow request: the next request on it is served', async () => {
  const socket = await socketTo();
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString()));
  const ask = async (): Promise<void> => {
    answer = '';
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    while (!answer.endsWith('{"status":"ok"}')) await sleep(10);
  };
  try {
    await ask();
    await sleep(TIMEOUT_MS * 3);
    await ask();
    assert.match(answer, /^HTTP\/1\.1 200 /);
  } finally {
    socket.destroy();
  }
});
