// A body over the size limit is answered 413 with a problem document that every client reads,
// also one that writes its whole body before it reads the answer (Node's fetch, many SDKs): the
// server reads and discards the rest of the body, within bounds, before it closes the connection
// (a lingering close, as nginx does), instead of closing while the client is still sending, which
// reset the connection under it (EPIPE, ECONNRESET) and lost the answer (issue #25).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { LINGER_IDLE_MS } from '../../src/http/plugins/lingering-close.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t?.close());

const MB = 1024 * 1024;

/**
 * Writes the request and its whole body in 64 KiB writes, each after the last was taken, reading
 * nothing until the last is sent, as a client that sends first and reads after; then reads the
 * answer to the end. The connection's failure, if any, is the answer's text.
 */
function sendAllThenRead(head: string, bodyBytes: number): Promise<string> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.pause();
    let answer = '';
    let failure = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', (err: NodeJS.ErrnoException) => (failure ||= err.code ?? err.message));
    socket.on('close', () => resolve(failure === '' ? answer : `failed: ${failure}`));
    socket.setTimeout(20_000, () => socket.destroy(new Error('timed out')));
    void (async () => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const write = (bytes: string | Buffer) => new Promise<void>((done, fail) => socket.write(bytes, (err) => (err ? fail(err) : done())));
      try {
        await write(head);
        for (let sent = 0; sent < bodyBytes; sent += chunk.length) {
          await write(chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent)));
          await new Promise((r) => setImmediate(r));
        }
        socket.end();
      } catch {
        // the 'error' listener has it
      }
      socket.resume();
    })();
  });
}

test('a 2 MB body, sent in full before the answer is read: every try reads the 413 problem', async () => {
  const size = 2 * MB;
  for (const [framing, label] of [
    [`Content-Length: ${size}`, 'announced'],
    ['Transfer-Encoding: chunked', 'chunked'],
  ] as const) {
    for (let i = 0; i < 5; i++) {
      const head =
        `POST /v1/queues HTTP/1.1\r\nHost: readybell.test\r\nAuthorization: Bearer ${t.tenant.testKey}\r\n` +
        `Content-Type: application/json\r\n${framing}\r\n\r\n` +
        // A chunked body is one chunk of the whole size: the bytes on the wire are the same.
        (label === 'chunked' ? `${size.toString(16)}\r\n` : '');
      const answer = await sendAllThenRead(head, size);
      assert.match(answer, /^HTTP\/1\.1 413 /, `${label}, try ${i + 1}: ${answer.slice(0, 200)}`);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      assert.equal(body.code, 'payload-too-large');
      assert.match(answer, /\r\nconnection: close\r\n/i, 'the connection is not kept: the client sent more than was read');
    }
  }
});

test('a client that stops sending the rest of an oversized body, and keeps its side open, is not waited for beyond the bounds', async () => {
  const server = t.app.server.server;
  const connections = () => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
  await eventually(async () => (await connections()) === 0, 'the earlier connections to close');
  const { hostname, port } = new URL(t.url);
  // Half-open allowed: the client does not close its side when the server has closed its own, so
  // only the server's bound ends the connection.
  const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  try {
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => {});
    const started = Date.now();
    socket.write(
      `POST /v1/queues HTTP/1.1\r\nHost: readybell.test\r\nAuthorization: Bearer ${t.tenant.testKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${2 * MB}\r\n\r\n${'a'.repeat(64 * 1024)}`,
    );
    await eventually(() => answer.includes('"payload-too-large"'), 'the 413 answer');
    await eventually(async () => (await connections()) === 0, 'the server to close the connection', LINGER_IDLE_MS + 3_000);
    const lingered = Date.now() - started;
    assert.ok(lingered >= LINGER_IDLE_MS - 100, `closed after ${lingered} ms: it did not linger`);
  } finally {
    socket.destroy();
  }
});
