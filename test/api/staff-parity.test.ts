// Parity by construction (PRODUCT.md §12): every request the staff page can make is a documented
// /v1 operation. The page's requests all come from one table (web/staff/src/api.ts); this test
// checks the table against the OpenAPI document, and that no other file of the page makes a
// request of its own.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ROUTES, url } from '../../web/staff/src/api.ts';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/staff/src');

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : /\.(ts|tsx)$/.test(name) ? [full] : [];
  });
}

test('every request in the staff page table is a documented /v1 operation', async () => {
  const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).body as { paths: Record<string, Record<string, unknown>> };
  const entries = Object.entries(ROUTES);
  assert.ok(entries.length >= 25, `the table lists only ${entries.length} requests`);
  const undocumented = entries
    .filter(([, [method, p]]) => doc.paths[p]?.[method.toLowerCase()] === undefined)
    .map(([name, [m, p]]) => `${name}: ${m} ${p}`);
  assert.deepEqual(undocumented, [], `the staff page makes requests the API does not document:\n${undocumented.join('\n')}`);
  for (const [, [, p]] of entries) assert.ok(p.startsWith('/v1/'), `${p} is outside /v1`);
});

test('no file of the staff page but api.ts makes a request or names a server path', () => {
  const offenders: string[] = [];
  for (const file of sources(SRC)) {
    if (path.basename(file) === 'api.ts') continue;
    const text = readFileSync(file, 'utf8');
    for (const [pattern, what] of [
      [/\bfetch\s*\(/, 'fetch('],
      [/new\s+EventSource\b/, 'EventSource'],
      [/XMLHttpRequest|sendBeacon/, 'XHR/beacon'],
      [/['"`]\/v1\//, 'a /v1 path'],
    ] as const) {
      if (pattern.test(text)) offenders.push(`${path.relative(SRC, file)}: ${what}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('the table fills path parameters safely', () => {
  assert.equal(url('ticket', { id: 'tk_1' }), '/v1/tickets/tk_1');
  assert.equal(url('updateQueue', { name: 'A/../B' }), '/v1/queues/A%2F..%2FB');
  assert.equal(
    url('tickets', {}, { status: 'created,ready', limit: 5, external_ref: undefined }),
    '/v1/tickets?status=created%2Cready&limit=5',
  );
  assert.throws(() => url('ticket'), /needs the parameter id/);
});
