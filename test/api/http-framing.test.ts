// What readybell does not implement of HTTP framing is refused with a problem document (issue #25),
// not served as if it were plain (a gzip body taken as JSON) nor answered by Node alone (an empty
// 417, a silent close on CONNECT). Raw sockets: fetch cannot send most of these.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertProblemAnswer, rawExchange } from '../helpers/raw-http.ts';
import { snapshot } from '../helpers/tickets.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t?.close());

const create = (headers: string, body: string): string =>
  `POST /v1/tickets HTTP/1.1\r\nHost: readybell.test\r\nAuthorization: Bearer ${t.tenant.testKey}\r\n` +
  `Content-Type: application/json\r\nConnection: close\r\n${headers}\r\n${body}`;

test('a body with a transfer coding other than chunked, or with a Content-Encoding, creates nothing: 501 and 415', async () => {
  const before = await snapshot(t, t.tenant.branchId);
  const [gzipChunked] = await rawExchange(t.url, create('Transfer-Encoding: gzip, chunked\r\n', '2\r\n{}\r\n0\r\n\r\n'));
  assertProblemAnswer(gzipChunked!, 501, 'not-implemented');
  assert.match(JSON.parse(gzipChunked!.body).detail, /Transfer-Encoding "gzip, chunked"/);
  assert.equal(gzipChunked!.headers.get('connection'), 'close');

  for (const coding of ['gzip', 'br', 'deflate, gzip']) {
    const [encoded] = await rawExchange(t.url, create(`Content-Encoding: ${coding}\r\nContent-Length: 2\r\n`, '{}'));
    assertProblemAnswer(encoded!, 415, 'unsupported-media-type');
    assert.match(JSON.parse(encoded!.body).detail, /Content-Encoding/);
    assert.equal(encoded!.headers.get('accept-encoding'), 'identity', 'RFC 9110: a 415 for a content coding says which it accepts');
  }
  assert.deepEqual(await snapshot(t, t.tenant.branchId), before, 'no ticket was created');

  // Plain chunked and identity are served as ever.
  const [chunked] = await rawExchange(t.url, create('Transfer-Encoding: chunked\r\n', '2\r\n{}\r\n0\r\n\r\n'));
  assert.equal(chunked!.status, 201, chunked!.body);
  const [identity] = await rawExchange(t.url, create('Content-Encoding: identity\r\nContent-Length: 2\r\n', '{}'));
  assert.equal(identity!.status, 201, identity!.body);
});

test('two Host headers: 400, and the connection is closed', async () => {
  const [answer, ...more] = await rawExchange(t.url, 'GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n');
  assertProblemAnswer(answer!, 400, 'bad-request');
  assert.match(JSON.parse(answer!.body).detail, /one Host header, not 2/);
  assert.equal(answer!.headers.get('connection'), 'close');
  assert.deepEqual(more, []);
});

test('an Expect other than 100-continue: 417 with a problem document; 100-continue is met', async () => {
  const [answer] = await rawExchange(t.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n');
  assertProblemAnswer(answer!, 417, 'expectation-failed');
  assert.match(JSON.parse(answer!.body).detail, /200-ok/);

  const [cont, created] = await rawExchange(t.url, async (write) => {
    write(create('Expect: 100-continue\r\nContent-Length: 2\r\n', ''));
    await new Promise((resolve) => setImmediate(resolve));
    write('{}');
  });
  assert.equal(cont!.status, 100);
  assert.equal(created!.status, 201, created!.body);
});

test('CONNECT and a method the parser does not know: 501 with a problem document; a known method a path lacks: 405', async () => {
  const [connect] = await rawExchange(t.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  assertProblemAnswer(connect!, 501, 'not-implemented');
  assert.match(JSON.parse(connect!.body).detail, /CONNECT/);

  const [unknown] = await rawExchange(t.url, 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  assertProblemAnswer(unknown!, 501, 'not-implemented');

  for (const method of ['TRACE', 'PROPFIND']) {
    const [answer] = await rawExchange(t.url, `${method} /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assertProblemAnswer(answer!, 405, 'method-not-allowed');
    assert.equal(answer!.headers.get('allow'), 'GET, HEAD');
  }
});
