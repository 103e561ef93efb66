// Parity by construction (PRODUCT.md §12): every request the staff page can make is a documented
// /v1 operation. The page's requests all come from one table (web/staff/src/api.ts), keyed by
// operationId; this test checks the table against the served OpenAPI document (type-checking the
// page checks it against the generated types), and that no other file of the page makes a
// request of its own.
// One engine: the staff page's request table against the document.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, ROUTES, url, type RouteTable } from '../../web/staff/src/api.ts';
import type { Ticket } from '../../web/staff/src/types.ts';

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

test('every request in the staff page table is the documented /v1 operation it is named after', async () => {
  const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).body as {
    paths: Record<string, Record<string, { operationId?: string } | undefined>>;
  };
  const entries = Object.entries(ROUTES);
  assert.ok(entries.length >= 25, `the table lists only ${entries.length} requests`);
  const wrong = entries
    .filter(([name, [method, p]]) => doc.paths[p]?.[method.toLowerCase()]?.operationId !== name)
    .map(([name, [m, p]]) => `${name}: ${m} ${p} is ${doc.paths[p]?.[m.toLowerCase()]?.operationId ?? 'not documented'}`);
  assert.deepEqual(wrong, [], `the staff page's table disagrees with the API's document:\n${wrong.join('\n')}`);
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
  assert.equal(url('getTicket', { id: 'tk_1' }), '/v1/tickets/tk_1');
  assert.equal(url('updateQueue', { name: 'A/../B' }), '/v1/queues/A%2F..%2FB');
  assert.equal(
    url('listTickets', {}, { status: 'created,ready', limit: 5, external_ref: undefined }),
    '/v1/tickets?status=created%2Cready&limit=5',
  );
  assert.throws(() => url('getTicket'), /needs the parameter id/);
});

// Never called: type-checked by `tsc` (test/ is in the project). The page's table and its calls
// are typed by the document, so the types must refuse these.
export function refusedByTheTypes(): void {
  void ({ getTicket: ['GET', '/v1/tickets/{id}'] } as const satisfies RouteTable);
  // @ts-expect-error deleteDisplay is not served at the announcements' path
  void ({ deleteDisplay: ['DELETE', '/v1/announcements/{id}'] } as const satisfies RouteTable);
  // @ts-expect-error getTicket is not served by DELETE
  void ({ getTicket: ['DELETE', '/v1/tickets/{id}'] } as const satisfies RouteTable);
  // @ts-expect-error not an operationId
  void ({ ticket: ['GET', '/v1/tickets/{id}'] } as const satisfies RouteTable);

  const ticket: Promise<Ticket> = call('getTicket', { params: { id: 'tk_1' } });
  void ticket;
  // @ts-expect-error the path parameter is required
  void call('getTicket');
  // @ts-expect-error limit is a number
  void call('listTickets', { query: { limit: '5' } });
  // @ts-expect-error a queue needs a name
  void call('createQueue', { body: {} });
  // @ts-expect-error a ticket is not a list
  const list: Promise<{ data: unknown[] }> = call('getTicket', { params: { id: 'tk_1' } });
  void list;
}
