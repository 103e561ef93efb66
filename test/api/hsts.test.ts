// Strict-Transport-Security (PRODUCT.md §5): on every answer when the service is reached over
// HTTPS (its own TLS, or a trusted proxy saying so), never over plain HTTP; the pages keep their
// own security headers.
// One engine: a response header set by the HTTP layer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pathOf } from '../helpers/live.ts';

const HSTS = /^max-age=31536000; includeSubDomains$/;

let dir: string;
let certFile: string;
let tls: TestApp;
let proxied: TestApp;
let plain: TestApp;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'readybell-hsts-'));
  certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
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
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  tls = await startTestApp({ env: { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } });
  proxied = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1' } });
  plain = await startTestApp();
});
after(async () => {
  await Promise.all([tls.close(), proxied.close(), plain.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** One HTTPS request to the TLS app; only the status and headers are read (a stream is left open otherwise). */
function overTls(
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  const { port } = new URL(tls.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path, method, headers, ca: readFileSync(certFile), servername: 'localhost', agent: false },
      (res) => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
        res.destroy();
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('served over its own TLS: HSTS on API answers, errors, pages and live streams', async () => {
  const tk = (
    await tls.app.server.inject({
      method: 'POST',
      url: '/v1/tickets',
      headers: { authorization: `Bearer ${tls.tenant.testKey}`, 'content-type': 'application/json' },
      payload: '{}',
    })
  ).json();
  const bearer = { authorization: `Bearer ${tls.tenant.testKey}` };
  const answers = {
    health: await overTls('GET', '/healthz'),
    api: await overTls('GET', '/v1/tickets', bearer),
    unauthenticated: await overTls('GET', '/v1/tickets'),
    unknownRoute: await overTls('GET', '/nowhere'),
    page: await overTls('GET', pathOf(tk.url)),
    stream: await overTls('GET', `${pathOf(tk.url)}/events`, { accept: 'text/event-stream' }),
    docs: await overTls('GET', '/docs/'),
  };
  assert.deepEqual(Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, v.status])), {
    health: 200,
    api: 200,
    unauthenticated: 401,
    unknownRoute: 404,
    page: 200,
    stream: 200,
    docs: 200,
  });
  for (const [what, res] of Object.entries(answers)) assert.match(String(res.headers['strict-transport-security']), HSTS, what);
  // The page's own policy is untouched.
  assert.match(String(answers.page.headers['content-security-policy']), /^default-src 'none'; script-src 'self'/);
  assert.equal(answers.page.headers['x-frame-options'], 'DENY');
  assert.match(answers.stream.headers['content-type'] ?? '', /^text\/event-stream/);
});

test('behind a trusted proxy: HSTS when the proxy says https, not when it says http', async () => {
  const ask = async (headers: Record<string, string>) =>
    (await fetch(`${proxied.url}/healthz`, { headers })).headers.get('strict-transport-security');
  assert.match((await ask({ 'x-forwarded-proto': 'https' })) ?? '', HSTS);
  assert.equal(await ask({ 'x-forwarded-proto': 'http' }), null);
  assert.equal(await ask({}), null);
  const page = await fetch(`${proxied.url}/t/${'A'.repeat(32)}`, { headers: { 'x-forwarded-proto': 'https' } });
  assert.equal(page.status, 404);
  assert.match(page.headers.get('strict-transport-security') ?? '', HSTS);
});

test('plain HTTP without a trusted proxy: no HSTS, whatever the client claims', async () => {
  for (const headers of [{}, { 'x-forwarded-proto': 'https' }] as Array<Record<string, string>>) {
    const res = await fetch(`${plain.url}/healthz`, { headers });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('strict-transport-security'), null);
  }
});
