// The built staff page is served by readybell itself with caching that suits it: content-hashed
// assets cached for a year, the HTML revalidated on every load, a strict CSP, gzip when asked.
// One engine: static files and their caching headers.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ensureStaffBuilt } from '../helpers/staff-dist.ts';

let t: TestApp;
before(async () => {
  ensureStaffBuilt();
  t = await startTestApp();
});
after(() => t.close());

const get = (p: string, headers: Record<string, string> = {}) => fetch(t.url + p, { headers });

test('/staff is the page: HTML, revalidated on every load, with a strict CSP', async () => {
  const res = await get('/staff');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const d of ["script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.includes(d), d);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  const html = await res.text();
  assert.match(html, /<script type="module" crossorigin src="\/staff\/assets\/[^"]+\.js">/);
  assert.doesNotMatch(html, /<script>|<script type="module">[^<]/, 'no inline script');

  const again = await get('/staff', { 'if-none-match': res.headers.get('etag')! });
  assert.equal(again.status, 304);
  assert.equal((await get('/staff/admin/keys')).status, 200, 'a bookmarked screen gets the page');
  assert.equal((await fetch(t.url + '/staff', { method: 'HEAD' })).status, 200);
});

test('hashed assets are cached for a year, immutable, and gzipped when the browser accepts it', async () => {
  const html = await (await get('/staff')).text();
  const js = /src="(\/staff\/assets\/[^"]+\.js)"/.exec(html)![1]!;
  const css = /href="(\/staff\/assets\/[^"]+\.css)"/.exec(html)![1]!;
  for (const [p, type] of [
    [js, /^text\/javascript/],
    [css, /^text\/css/],
  ] as const) {
    const res = await get(p, { 'accept-encoding': 'gzip' });
    assert.equal(res.status, 200, p);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(res.headers.get('content-type') ?? '', type);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  }
  const raw = await new Promise<Buffer>((resolve, reject) => {
    import('node:http').then(
      ({ get: httpGet }) =>
        httpGet(t.url + js, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
          assert.equal(res.headers['content-encoding'], 'gzip');
          const chunks: Buffer[] = [];
          res
            .on('data', (c: Buffer) => chunks.push(c))
            .on('end', () => resolve(Buffer.concat(chunks)))
            .on('error', reject);
        }).on('error', reject),
      reject,
    );
  });
  assert.match(gunzipSync(raw).toString('utf8').slice(0, 2000), /\S/);
  assert.equal((await get('/staff/assets/missing-abc123.js')).status, 404);
});
