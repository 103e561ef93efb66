// Operations: liveness and readiness, a Request-Id on every answer (and in the logs), and the
// RateLimit fields on every /v1 answer (PRODUCT.md §8, §13).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { storeName } from '../helpers/store.ts';
import { FakeClock } from '../helpers/clock.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { get as httpsGet } from 'node:https';

const logLines: string[] = [];
let t: TestApp;
before(async () => {
  // A still clock: buckets do not refill behind the test's back.
  t = await startTestApp({
    clock: new FakeClock(),
    env: { LOG_LEVEL: 'info' },
    logDestination: { write: (line: string) => void logLines.push(line) },
  });
});
after(() => t.close());

test('/healthz answers while the process is alive, without a key', async () => {
  const res = await t.request('GET', '/healthz', { key: null });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { status: 'ok' });
});

test('/readyz is 200 while the store answers and 503 when it does not', async () => {
  const res = await t.request('GET', '/readyz', { key: null });
  assert.equal(res.status, 200);
  assert.equal(res.body.status, 'ready');
  assert.equal(res.body.store, storeName);

  const db = t.app.services.db;
  const ping = db.ping;
  db.ping = async () => {
    throw new Error('connection refused');
  };
  try {
    const down = await t.request('GET', '/readyz', { key: null });
    assert.equal(down.status, 503);
    assert.equal(down.body.status, 'unavailable');
    assert.doesNotMatch(down.text, /connection refused/);
  } finally {
    db.ping = ping;
  }
  assert.equal((await t.request('GET', '/readyz', { key: null })).status, 200);
});

test('every answer carries a fresh Request-Id, errors included', async () => {
  const calls: Array<[string, string, { key?: string | null; body?: unknown; headers?: Record<string, string> }]> = [
    ['GET', '/healthz', { key: null }],
    ['GET', '/readyz', { key: null }],
    ['GET', '/v1/branch', {}],
    ['POST', '/v1/tickets', { body: {} }],
    ['GET', '/v1/branch', { key: null }],
    ['GET', '/v1/branch', { key: `rk_test_${'Q'.repeat(32)}` }],
    ['GET', '/v1/nowhere', {}],
    ['GET', '/nowhere', { key: null }],
    ['PUT', '/v1/branch', {}],
    ['POST', '/v1/tickets', { body: { nope: true } }],
    ['GET', '/v1/openapi.json', { key: null }],
    ['GET', '/problems/not-found', { key: null }],
    ['GET', '/docs/', { key: null }],
  ];
  const seen = new Set<string>();
  for (const [method, path, opts] of calls) {
    const res = await t.request(method, path, opts);
    const id = res.headers.get('request-id');
    assert.match(id ?? '', /^req_[A-Za-z0-9_-]{16}$/, `${method} ${path} (${res.status})`);
    assert.equal(seen.has(id!), false);
    seen.add(id!);
  }
});

test('a Request-Id header from the client is not taken (X-Request-Id is, within bounds: request-id.test.ts)', async () => {
  const res = await t.request('GET', '/v1/branch', { headers: { 'request-id': 'req_forged' } });
  assert.notEqual(res.headers.get('request-id'), 'req_forged');
  assert.equal(res.headers.get('x-request-id'), null, 'X-Request-Id is echoed only to a caller who sent one');
});

test('log lines of a request carry its request id', async () => {
  const res = await t.request('GET', '/v1/tickets/tk_unknown');
  const id = res.headers.get('request-id')!;
  const mine = logLines.map((l) => JSON.parse(l) as { reqId?: string; msg?: string }).filter((l) => l.reqId === id);
  assert.ok(mine.length >= 2, 'the request is logged when it comes in and when it completes');
  assert.ok(mine.every((l) => l.reqId === id));
});

test('every /v1 answer has RateLimit-Policy and the RateLimit of the bucket it counted against', async () => {
  const tenant = await t.newTenant();
  const policy = /^"writes";q=\d+;w=\d+, "reads";q=\d+;w=\d+$/;
  const read = await t.request('GET', '/v1/queues', { key: tenant.testKey });
  assert.match(read.headers.get('ratelimit-policy') ?? '', policy);
  assert.match(read.headers.get('ratelimit') ?? '', /^"reads";r=\d+(;t=\d+)?$/);

  const write = await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: {} });
  assert.equal(write.status, 201);
  assert.match(write.headers.get('ratelimit-policy') ?? '', policy);
  assert.match(write.headers.get('ratelimit') ?? '', /^"writes";r=\d+(;t=\d+)?$/);

  // Refused requests count too, and say so.
  for (const res of [
    await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { bad: 1 } }),
    await t.request('GET', '/v1/tickets/tk_missing', { key: tenant.testKey }),
    await t.request('PATCH', '/v1/queues/Nope', { key: tenant.testKey, body: {} }),
  ]) {
    assert.ok(res.status >= 400);
    assert.match(res.headers.get('ratelimit-policy') ?? '', policy);
    assert.match(res.headers.get('ratelimit') ?? '', /^"(reads|writes)";r=\d+/);
  }

  const before = Number(/r=(\d+)/.exec(read.headers.get('ratelimit')!)![1]);
  const again = await t.request('GET', '/v1/queues', { key: tenant.testKey });
  assert.equal(
    Number(/r=(\d+)/.exec(again.headers.get('ratelimit')!)![1]),
    before - 2,
    'each read takes one token, the refused GET included',
  );
});

test('with TLS_CERT_FILE and TLS_KEY_FILE the server speaks HTTPS itself', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const tls = await startTestApp({ env: { TLS_CERT_FILE: cert, TLS_KEY_FILE: key } });
  try {
    const port = new URL(tls.url).port;
    const answer = await new Promise<{ status: number; body: string; authorized: boolean }>((resolve, reject) => {
      // Verified against the certificate itself: the answer really came over that TLS session.
      httpsGet({ host: '127.0.0.1', port, path: '/healthz', ca: readFileSync(cert), servername: 'localhost', agent: false }, (res) => {
        const authorized = (res.socket as TLSSocket).authorized;
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, authorized }));
      }).on('error', reject);
    });
    assert.deepEqual(answer, { status: 200, body: '{"status":"ok"}', authorized: true });
    // Plain HTTP on the TLS port gets no answer a browser could use.
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
  } finally {
    await tls.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
