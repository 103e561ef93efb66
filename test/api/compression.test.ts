// Answers are compressed when the client accepts it (issue 16, item 5): lists, replays, pages and
// the staff page's files, each decoding to exactly what an uncompressed client gets; small answers
// stay as they are; live streams are never compressed, so their events still arrive at once.
// One engine: compression is the HTTP layer's; the answers it compresses come from the same code on either store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ensureStaffBuilt } from '../helpers/staff-dist.ts';
import { openPage, pathOf } from '../helpers/live.ts';
import { openSse } from '../helpers/sse-client.ts';
import { COMPRESSION_THRESHOLD_BYTES } from '../../src/http/plugins/compression.ts';

let t: TestApp;
before(async () => {
  ensureStaffBuilt();
  t = await startTestApp();
});
after(() => t.close());

type RawAnswer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** One request with node:http, which (unlike fetch) neither asks for nor undoes compression by itself. */
function raw(method: string, p: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      t.url + p,
      { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const auth = (): Record<string, string> => ({ authorization: `Bearer ${t.tenant.testKey}` });

function decode(a: RawAnswer): string {
  const encoding = a.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(a.body).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(a.body).toString('utf8');
  assert.equal(encoding, undefined, `unexpected Content-Encoding ${encoding}`);
  return a.body.toString('utf8');
}

function assertCompressed(a: RawAnswer, encoding: 'gzip' | 'br'): void {
  assert.equal(a.headers['content-encoding'], encoding);
  assert.match(String(a.headers.vary), /accept-encoding/i);
}

test('a 32-ticket list is gzipped for a client that accepts it, far smaller, and decodes to the same JSON', async (tc) => {
  for (let i = 0; i < 32; i++) {
    const created = await t.request('POST', '/v1/tickets', {
      body: { external_ref: `order-${1000 + i}`, metadata: { table: String(i % 12), channel: 'counter' } },
    });
    assert.equal(created.status, 201);
  }
  const list = '/v1/tickets?limit=32';
  const plain = await raw('GET', list, auth());
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: sent as it is');
  assert.equal(JSON.parse(plain.body.toString('utf8')).data.length, 32);

  const gzipped = await raw('GET', list, { ...auth(), 'accept-encoding': 'gzip' });
  assert.equal(gzipped.status, 200);
  assertCompressed(gzipped, 'gzip');
  assert.deepEqual(JSON.parse(decode(gzipped)), JSON.parse(plain.body.toString('utf8')));
  assert.ok(gzipped.body.length * 5 < plain.body.length, `${gzipped.body.length} bytes gzipped of ${plain.body.length}`);
  tc.diagnostic(`32-ticket list: ${plain.body.length} bytes raw, ${gzipped.body.length} gzipped`);

  // A browser accepts both; brotli is preferred when the client has no preference of its own.
  const br = await raw('GET', list, { ...auth(), 'accept-encoding': 'gzip, deflate, br' });
  assertCompressed(br, 'br');
  assert.deepEqual(JSON.parse(decode(br)), JSON.parse(plain.body.toString('utf8')));
  assert.equal((await raw('GET', list, { ...auth(), 'accept-encoding': 'identity' })).headers['content-encoding'], undefined);
});

test('a small answer (a created ticket) is sent as it is: compressing it would cost more than it saves', async () => {
  const created = await raw('POST', '/v1/tickets', { ...auth(), 'accept-encoding': 'gzip, br' }, '{}');
  assert.equal(created.status, 201);
  assert.equal(created.headers['content-encoding'], undefined);
  assert.ok(created.body.length < COMPRESSION_THRESHOLD_BYTES, `${created.body.length} bytes`);
  assert.match(JSON.parse(created.body.toString('utf8')).id, /^tk_/);
});

test('an idempotent replay is compressed like the first answer, and decodes to the same body', async () => {
  // Metadata makes the answer large enough to compress.
  const body = JSON.stringify({
    metadata: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`note${i}`, `extra napkins and a long note ${i} `.repeat(8)])),
  });
  const headers = { ...auth(), 'accept-encoding': 'gzip', 'idempotency-key': `compress-${Date.now()}` };
  const first = await raw('POST', '/v1/tickets', headers, body);
  assert.equal(first.status, 201);
  assertCompressed(first, 'gzip');
  const replay = await raw('POST', '/v1/tickets', headers, body);
  assert.equal(replay.status, 201);
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assertCompressed(replay, 'gzip');
  assert.deepEqual(JSON.parse(decode(replay)), JSON.parse(decode(first)));
});

test('the customer page and the board are compressed HTML', async () => {
  const ticket = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const display = (await t.request('POST', '/v1/displays', { body: { name: 'Counter TV' } })).body;
  for (const url of [ticket.url, display.url]) {
    const page = await raw('GET', pathOf(url), { 'accept-encoding': 'gzip' });
    assert.equal(page.status, 200, url);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assertCompressed(page, 'gzip');
    const html = decode(page);
    assert.match(html, /^<!doctype html>/i);
    // The board carries the server's time (for its clock), which moves between the two requests.
    const timeless = (page: string): string => page.replace(/data-now="\d+"/, '').replace(/<time id="clock"[^<]*<\/time>/, '');
    assert.equal(timeless(html), timeless(decode(await raw('GET', pathOf(url)))));
  }
});

test("the staff page's files are gzipped once, never twice, and other encodings are made on the fly", async () => {
  const html = decode(await raw('GET', '/staff'));
  const js = /src="(\/staff\/assets\/[^"]+\.js)"/.exec(html)![1]!;
  const identity = await raw('GET', js);
  assert.equal(identity.headers['content-encoding'], undefined);

  const gzipped = await raw('GET', js, { 'accept-encoding': 'gzip' });
  assert.equal(gzipped.headers['content-encoding'], 'gzip');
  assert.ok(gunzipSync(gzipped.body).equals(identity.body), 'one gunzip gives the file');

  const br = await raw('GET', js, { 'accept-encoding': 'br' });
  assertCompressed(br, 'br');
  assert.equal(br.headers.vary, 'accept-encoding', 'said once');
  assert.ok(brotliDecompressSync(br.body).equals(identity.body));
});

test('live streams are never compressed: with Accept-Encoding: gzip their events still arrive at once', async () => {
  const ticket = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const page = await openPage(t, ticket.url, { headers: { 'accept-encoding': 'gzip, br' } });
  assert.equal(page.headers['content-encoding'], undefined);
  const staff = await openSse(`${t.url}/v1/stream`, { ...auth(), 'accept-encoding': 'gzip, br' });
  assert.equal(staff.status, 200);
  assert.equal(staff.headers['content-encoding'], undefined);
  await staff.next('ready');

  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/ready`)).status, 200);
  // A compressor would hold these back until its buffer filled (or the stream ended).
  await page.next('snapshot', (v) => v.status === 'ready', 2000);
  await staff.next('message', (m) => m.ticket_id === ticket.id && m.status === 'ready', 2000);
  page.close();
  staff.close();
});
