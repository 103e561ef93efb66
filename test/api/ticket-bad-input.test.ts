// Bad input on the ticket routes (issue 3's list): each gets its documented RFC 9457 problem, and
// none changes anything in the store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTicket, snapshot } from '../helpers/tickets.ts';

type Case = {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  status: number;
  code: string;
  pointer?: string;
};

let t: TestApp;
let id: string;
let foreignId: string;
before(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_WRITES_BURST: '1000' } });
  id = (await createTicket(t)).id;
  foreignId = (await createTicket(t, { key: (await t.newTenant()).testKey })).id;
});
after(() => t.close());

const json = { 'content-type': 'application/json' };
const UNKNOWN = 'tk_00000000000000000000000000';
const metadata = (n: number, value = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));

function cases(): Case[] {
  const create = (name: string, body: unknown, pointer: string): Case => ({
    name,
    method: 'POST',
    path: '/v1/tickets',
    body,
    status: 422,
    code: 'validation-failed',
    pointer,
  });
  const list = (name: string, qs: string, pointer: string): Case => ({
    name,
    method: 'GET',
    path: `/v1/tickets?${qs}`,
    status: 422,
    code: 'validation-failed',
    pointer,
  });
  const out: Case[] = [
    create('unknown queue', { queue: 'Z' }, '/queue'),
    create('queue name with a space', { queue: 'A B' }, '/queue'),
    create('phone without +', { customer_phone: '0612345678' }, '/customer_phone'),
    create('phone starting +0', { customer_phone: '+0612345678' }, '/customer_phone'),
    create('phone with spaces', { customer_phone: '+1 415 555 0123' }, '/customer_phone'),
    create('phone too long', { customer_phone: '+1234567890123456' }, '/customer_phone'),
    create('21 metadata pairs', { metadata: metadata(21) }, '/metadata'),
    create('a metadata value of 501 characters', { metadata: { note: 'x'.repeat(501) } }, '/metadata/note'),
    create('a metadata key of 41 characters', { metadata: { ['k'.repeat(41)]: 'v' } }, '/metadata'),
    create('a metadata value that is not a string', { metadata: { table: 12 } }, '/metadata/table'),
    create('external_ref over 64', { external_ref: 'r'.repeat(65) }, '/external_ref'),
    create('an unknown field', { colour: 'red' }, '/colour'),
    { name: 'a JSON array body', method: 'POST', path: '/v1/tickets', raw: '[]', headers: json, status: 422, code: 'validation-failed' },
    list('limit=0', 'limit=0', '/query/limit'),
    list('limit=1000', 'limit=1000', '/query/limit'),
    list('limit=abc', 'limit=abc', '/query/limit'),
    list('an unknown status', 'status=ready,lost', '/query/status'),
    list('created_after not a date', 'created_after=yesterday', '/query/created_after'),
    list('created_before a leap second, which Date cannot hold', 'created_before=2016-12-31T23:59:60Z', '/query/created_before'),
    list('an unknown filter', 'colour=red', '/query/colour'),
    list('a cursor from another branch', `starting_after=${foreignId}`, '/query/starting_after'),
    list('a cursor that is no ticket id', 'starting_after=abc', '/query/starting_after'),
    {
      name: 'non-JSON body on ready',
      method: 'POST',
      path: `/v1/tickets/${id}/ready`,
      raw: 'ready!',
      headers: json,
      status: 400,
      code: 'invalid-json',
    },
    {
      name: 'a text body on ready',
      method: 'POST',
      path: `/v1/tickets/${id}/ready`,
      raw: 'ready',
      headers: { 'content-type': 'text/plain' },
      status: 415,
      code: 'unsupported-media-type',
    },
    {
      name: 'a field in the ready body',
      method: 'POST',
      path: `/v1/tickets/${id}/ready`,
      body: { force: true },
      status: 422,
      code: 'validation-failed',
      pointer: '/force',
    },
    {
      name: 'a cancel reason over 200',
      method: 'POST',
      path: `/v1/tickets/${id}/cancel`,
      body: { reason: 'r'.repeat(201) },
      status: 422,
      code: 'validation-failed',
      pointer: '/reason',
    },
    {
      name: 'an empty Idempotency-Key',
      method: 'POST',
      path: '/v1/tickets',
      body: {},
      headers: { 'idempotency-key': '' },
      status: 400,
      code: 'bad-request',
      pointer: '/headers/idempotency-key',
    },
    {
      name: 'a malformed Idempotency-Key',
      method: 'POST',
      path: `/v1/tickets/${id}/ready`,
      headers: { 'idempotency-key': '"a"b' },
      status: 400,
      code: 'bad-request',
      pointer: '/headers/idempotency-key',
    },
    {
      name: 'an Idempotency-Key of 256',
      method: 'POST',
      path: '/v1/tickets',
      body: {},
      headers: { 'idempotency-key': 'k'.repeat(256) },
      status: 400,
      code: 'bad-request',
      pointer: '/headers/idempotency-key',
    },
  ];
  for (const route of ['', '/qr.svg', '/qr.png']) {
    out.push({
      name: `unknown ticket id: GET${route}`,
      method: 'GET',
      path: `/v1/tickets/${UNKNOWN}${route}`,
      status: 404,
      code: 'not-found',
    });
    out.push({
      name: `id of the wrong shape: GET${route}`,
      method: 'GET',
      path: `/v1/tickets/12345${route}`,
      status: 404,
      code: 'not-found',
    });
  }
  for (const op of ['ready', 'ring', 'collect', 'cancel']) {
    out.push({ name: `unknown ticket id: ${op}`, method: 'POST', path: `/v1/tickets/${UNKNOWN}/${op}`, status: 404, code: 'not-found' });
    out.push({
      name: `an event id as ticket id: ${op}`,
      method: 'POST',
      path: `/v1/tickets/evt_00000000000000000000000000/${op}`,
      status: 404,
      code: 'not-found',
    });
    out.push({
      name: `unknown ticket id with a key: ${op}`,
      method: 'POST',
      path: `/v1/tickets/${UNKNOWN}/${op}`,
      headers: { 'idempotency-key': `${op}-unknown` },
      status: 404,
      code: 'not-found',
    });
  }
  return out;
}

test('each bad input gets its documented problem and changes nothing', async () => {
  const before = await snapshot(t, t.tenant.branchId);
  for (const c of cases()) {
    const res = await t.request(c.method, c.path, { body: c.body, raw: c.raw, headers: c.headers });
    assert.equal(res.status, c.status, `${c.name}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, c.name);
    assert.equal(res.body.code, c.code, c.name);
    assert.equal(res.body.type, `/problems/${c.code}`, c.name);
    assert.equal(res.body.status, c.status, c.name);
    assert.equal(typeof res.body.detail, 'string', c.name);
    assert.match(res.body.request_id, /^req_/, c.name);
    if (c.pointer !== undefined) {
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer === c.pointer),
        `${c.name}: ${JSON.stringify(res.body.errors)}`,
      );
    }
  }
  assert.deepEqual(await snapshot(t, t.tenant.branchId), before);
  assert.equal((await t.request('GET', `/v1/tickets/${id}`)).body.status, 'created');
});

test('a body of only whitespace with an Idempotency-Key is an empty body, not a crash', async () => {
  const res = await t.request('POST', `/v1/tickets/${id}/cancel`, { raw: '  \n', headers: { ...json, 'idempotency-key': 'blank-body' } });
  assert.equal(res.status, 200, res.text);
  const again = await t.request('POST', `/v1/tickets/${id}/cancel`, { raw: '', headers: { ...json, 'idempotency-key': 'blank-body' } });
  assert.equal(again.text, res.text);
});

test('20 metadata pairs of 500 characters are accepted', async () => {
  const res = await t.request('POST', '/v1/tickets', { body: { metadata: metadata(20, 'v'.repeat(500)) } });
  assert.equal(res.status, 201, res.text);
});
