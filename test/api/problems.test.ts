// Bad input of every kind gets the right RFC 9457 problem (PRODUCT.md §7), never an HTML page, a
// stack trace or a 500, and nothing is half-written.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { PROBLEM_CATALOGUE } from '../../src/contract/problem-catalogue.ts';
import { connect } from 'node:net';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const json = { 'content-type': 'application/json' };

/** Checks the whole problem document, not just the status, the way a client library would. */
function assertProblem(res: Res, status: number, code: string, instance: string): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json(;|$)/);
  const p = res.body;
  assert.equal(p.type, `/problems/${code}`);
  assert.equal(p.code, code);
  assert.equal(p.status, status);
  assert.equal(p.title, PROBLEM_CATALOGUE[code as keyof typeof PROBLEM_CATALOGUE].title);
  assert.equal(typeof p.detail, 'string');
  assert.ok(p.detail.length > 0);
  assert.equal(p.instance, instance);
  assert.match(p.request_id, /^req_/);
  assert.equal(p.request_id, res.headers.get('request-id'));
  assertNoLeak(res);
}

function assertNoLeak(res: Res): void {
  assert.doesNotMatch(res.text, /<html|<!doctype/i);
  assert.doesNotMatch(res.text, /\bat [\w.<>]+ \(|node:internal|\/src\/|\.ts:\d+/);
}

test('malformed JSON: 400 invalid-json', async () => {
  for (const raw of ['{"queue": "A"', '{queue: A}', "{'queue':'A'}", '{"queue":"A"} trailing']) {
    assertProblem(await t.request('POST', '/v1/tickets', { raw, headers: json }), 400, 'invalid-json', '/v1/tickets');
  }
});

test('a 2 MB body: 413 payload-too-large, announced or streamed', async () => {
  const big = JSON.stringify({ external_ref: 'x'.repeat(2 * 1024 * 1024) });
  assertProblem(await t.request('POST', '/v1/tickets', { raw: big, headers: json }), 413, 'payload-too-large', '/v1/tickets');

  // Without Content-Length the limit must still hold while the body streams in.
  const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < 32) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const res = await fetch(`${t.url}/v1/tickets`, {
    method: 'POST',
    body: stream,
    duplex: 'half',
    headers: { ...json, authorization: `Bearer ${t.tenant.testKey}` },
  } as RequestInit);
  const text = await res.text();
  assertProblem({ status: res.status, headers: res.headers, text, body: JSON.parse(text) }, 413, 'payload-too-large', '/v1/tickets');
});

test('a wrong Content-Type: 415 unsupported-media-type, including form posts to the API', async () => {
  for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const res = await t.request('POST', '/v1/tickets', { raw: 'queue=A', headers: { 'content-type': type } });
    assertProblem(res, 415, 'unsupported-media-type', '/v1/tickets');
  }
  // A body with no Content-Type at all (fetch labels a string text/plain).
  assertProblem(await t.request('POST', '/v1/queues', { raw: '{"name":"B"}' }), 415, 'unsupported-media-type', '/v1/queues');
});

test('an unknown field: 422 validation-failed pointing at it', async () => {
  const res = await t.request('POST', '/v1/tickets', { body: { queue: 'A', colour: 'red' } });
  assertProblem(res, 422, 'validation-failed', '/v1/tickets');
  assert.deepEqual(res.body.errors, [{ pointer: '/colour', detail: 'is not a known field' }]);

  const nested = await t.request('PATCH', '/v1/branch', { body: { voice: { enabled: true, volume: 11 } } });
  assertProblem(nested, 422, 'validation-failed', '/v1/branch');
  assert.deepEqual(
    nested.body.errors.map((e: { pointer: string }) => e.pointer),
    ['/voice/volume'],
  );
});

test('wrong types: 422 with one error per field (no coercion of "12" into 12)', async () => {
  const res = await t.request('POST', '/v1/tickets', { body: { queue: 5, external_ref: ['x'], metadata: 'none' } });
  assertProblem(res, 422, 'validation-failed', '/v1/tickets');
  const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer).sort();
  assert.deepEqual(pointers, ['/external_ref', '/metadata', '/queue']);
  for (const e of res.body.errors) assert.equal(typeof e.detail, 'string');

  const coerced = await t.request('PATCH', '/v1/branch', { body: { reminder_count: '2' } });
  assertProblem(coerced, 422, 'validation-failed', '/v1/branch');
  assert.equal(coerced.body.errors[0].pointer, '/reminder_count');

  for (const raw of ['[]', '"A"', '12']) {
    const res2 = await t.request('POST', '/v1/tickets', { raw, headers: json });
    assertProblem(res2, 422, 'validation-failed', '/v1/tickets');
    assert.equal(res2.body.errors[0].pointer, '/');
  }
});

test('bad query and path parameters: 422 or 400, never a 500', async () => {
  const res = await t.request('GET', '/v1/tickets?limit=abc&status=lost');
  assertProblem(res, 422, 'validation-failed', '/v1/tickets');
  assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === '/query/limit'));
  assertProblem(await t.request('GET', '/v1/tickets?limit=1000'), 422, 'validation-failed', '/v1/tickets');
  assertProblem(await t.request('GET', '/v1/tickets?status=lost'), 422, 'validation-failed', '/v1/tickets');
  assertProblem(await t.request('GET', '/v1/tickets/not-an-id'), 404, 'not-found', '/v1/tickets/not-an-id');
  assertProblem(await t.request('GET', '/v1/tickets/%E0%A4%A'), 400, 'bad-request', '/v1/tickets/%E0%A4%A');
});

test('a malformed Idempotency-Key: 400 bad-request pointing at the header', async () => {
  for (const key of ['', 'x'.repeat(256), 'naïve']) {
    const res = await t.request('POST', '/v1/tickets', { body: {}, headers: { 'idempotency-key': key } });
    assertProblem(res, 400, 'bad-request', '/v1/tickets');
    assert.equal(res.body.errors[0].pointer, '/headers/idempotency-key');
  }
});

test('an empty key and a key of another mode', async () => {
  const empty = await t.request('POST', '/v1/tickets', { key: null, body: {}, headers: { authorization: 'Bearer ' } });
  assertProblem(empty, 401, 'unauthenticated', '/v1/tickets');
  assert.match(empty.headers.get('www-authenticate') ?? '', /^Bearer/);

  // A live ticket asked for with the test key is simply not there.
  const live = await t.request('POST', '/v1/tickets', { key: t.tenant.liveKey, body: {} });
  assert.equal(live.status, 201);
  assertProblem(
    await t.request('POST', `/v1/tickets/${live.body.id}/cancel`, { body: {} }),
    404,
    'not-found',
    `/v1/tickets/${live.body.id}/cancel`,
  );
  assert.equal((await t.request('GET', `/v1/tickets/${live.body.id}`, { key: t.tenant.liveKey })).body.status, 'created');
});

test('an unknown route: 404 problem, with or without a key', async () => {
  assertProblem(await t.request('GET', '/v1/nothing-here'), 404, 'not-found', '/v1/nothing-here');
  assertProblem(await t.request('GET', '/v2/tickets', { key: null }), 404, 'not-found', '/v2/tickets');
  assertProblem(await t.request('POST', '/nothing?x=1', { key: null, body: {} }), 404, 'not-found', '/nothing');
});

test('a wrong method: 405 method-not-allowed with Allow', async () => {
  const res = await t.request('PUT', '/v1/branch', { body: {} });
  assertProblem(res, 405, 'method-not-allowed', '/v1/branch');
  assert.deepEqual((res.headers.get('allow') ?? '').split(/,\s*/).sort(), ['GET', 'HEAD', 'PATCH']);

  const del = await t.request('DELETE', '/v1/tickets');
  assertProblem(del, 405, 'method-not-allowed', '/v1/tickets');
  assert.ok((del.headers.get('allow') ?? '').includes('POST'));
  const param = await t.request('PUT', '/v1/queues/A');
  assertProblem(param, 405, 'method-not-allowed', '/v1/queues/A');
  assert.deepEqual((param.headers.get('allow') ?? '').split(/,\s*/).sort(), ['DELETE', 'PATCH']);
});

test('nothing was written by any of the refused creates', async () => {
  const list = await t.request('GET', '/v1/tickets');
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.data, []);
  const queues = await t.request('GET', '/v1/queues');
  assert.deepEqual(
    queues.body.data.map((q: { name: string }) => q.name),
    ['A'],
  );
  const events = await t.request('GET', '/v1/events');
  assert.deepEqual(events.body.data, []);
});

test('every problem type is a human-readable page the service serves', async () => {
  for (const [code, entry] of Object.entries(PROBLEM_CATALOGUE)) {
    const res = await t.request('GET', `/problems/${code}`, { key: null });
    assert.equal(res.status, 200, code);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.ok(res.text.includes(entry.title), code);
    assert.equal(res.headers.get('request-id')?.startsWith('req_'), true);
  }
  const unknown = await t.request('GET', '/problems/no-such-problem', { key: null });
  assert.equal(unknown.status, 404);
  assert.ok(!unknown.text.includes('<script'));
});

test('problem type pages render code as code, never as literal backticks', async () => {
  const withCode = Object.entries(PROBLEM_CATALOGUE).filter(([, e]) => e.help.includes('`'));
  assert.ok(withCode.length > 0);
  for (const [code] of Object.entries(PROBLEM_CATALOGUE)) {
    const res = await t.request('GET', `/problems/${code}`, { key: null });
    assert.ok(!res.text.includes('`'), `${code}: ${res.text}`);
  }
  const page = (await t.request('GET', '/problems/unauthenticated', { key: null })).text;
  assert.ok(page.includes('<code>Authorization: Bearer &#60;API key&#62;</code>'), page);
  assert.ok(page.includes('<code>rk_live_</code>'));
});

test('names every object has (toString, __proto__, …) are unknown problem types, not a 500', async () => {
  for (const name of ['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__']) {
    const res = await t.request('GET', `/problems/${name}`, { key: null });
    assert.equal(res.status, 404, `${name}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/, name);
    assert.ok(res.text.includes('Unknown problem type'), name);
  }
});

/** Sends bytes no HTTP client library would produce and returns what came back. */
function rawRequest(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

test('a request that is not valid HTTP still gets a problem document with a Request-Id', async () => {
  for (const bytes of [
    'GET /v1/branch HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n',
    'HELLO\r\n\r\n',
    `GET /v1/branch HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  ]) {
    const answer = await rawRequest(t.url, bytes);
    const [head, body] = answer.split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 400 /);
    assert.match(head!, /\r\ncontent-type: application\/problem\+json/i);
    const id = /\r\nrequest-id: (req_[\w-]+)/i.exec(head!)?.[1];
    const p = JSON.parse(body!);
    assert.equal(p.code, 'bad-request');
    assert.equal(p.type, '/problems/bad-request');
    assert.equal(p.request_id, id);
  }
});
