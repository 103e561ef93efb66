// The tickets export (GET /v1/insights/tickets.csv) keeps every cell a spreadsheet could take for
// a formula as text (a leading apostrophe), also when the =, +, - or @ comes after Unicode blanks,
// a line break or a format character, or in its full-width form (issue #25); ordinary text and
// numbers with a sign inside are left as they are.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock, env: { RATE_LIMIT_WRITES_BURST: '1000' } });
});
after(() => t?.close());

/** The external_ref cells of a CSV, unquoted (RFC 4180: a quoted cell may hold commas and line breaks). */
function refCells(csv: string): string[] {
  const rows: string[][] = [[]];
  for (const [, cell, end] of csv.matchAll(/("(?:[^"]|"")*"|[^,\r\n]*)(,|\r\n|$)/g)) {
    if (cell === '' && end === '') break;
    rows.at(-1)!.push(cell!.startsWith('"') ? cell!.slice(1, -1).replaceAll('""', '"') : cell!);
    if (end === '\r\n') rows.push([]);
  }
  const [header, ...data] = rows.filter((r) => r.length > 1);
  const col = header!.indexOf('external_ref');
  return data.map((r) => r[col]!);
}

test('formula variants in external_ref come out as text: blanks, line breaks, format characters and full-width signs first', async () => {
  const formulas = [
    '=1+1',
    ' =1+1',
    '\u00A0=1+1',
    '\u200B=1+1',
    '\n=1+1',
    '\r\n+1',
    '\t@SUM(A1)',
    '\u3000-1+1',
    '\uFEFF=1+1',
    '\uFF1D1+1',
    '\uFF0B1+1',
    '\uFF0D1+1',
    '\uFF20SUM(A1)',
    '\u00A0\u200B \uFF1DHYPERLINK("http://evil.example")',
  ];
  const plain = ['1001', 'A=1', 'order 12-3', 'Zoë @ table 4', '\u00A0table 5'];
  clock.set(Date.parse('2026-11-21T09:00:00Z'));
  for (const ref of [...formulas, ...plain]) {
    const res = await t.request('POST', '/v1/tickets', { body: { external_ref: ref }, headers: { 'idempotency-key': randomUUID() } });
    assert.equal(res.status, 201, res.text);
  }
  clock.set(Date.parse('2026-11-22T09:00:00Z'));
  const res = await t.request('GET', '/v1/insights/tickets.csv?from=2026-11-21&to=2026-11-21');
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(refCells(res.text.replace(/^\uFEFF/, '')), [...formulas.map((f) => `'${f}`), ...plain]);
});
