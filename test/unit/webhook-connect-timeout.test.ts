// A delivery's connection has its own bound (decision 0048): a receiver's host that does not
// resolve or connect in time gives the slot back after the connect timeout, not the whole 10 s;
// a receiver that connects and then never answers still has the full answer timeout.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { OutboundHttpClient } from '../../src/webhooks/http-client.ts';

const sockets = new Set<net.Socket>();
const tarpit = net.createServer((socket) => {
  sockets.add(socket);
  socket.on('error', () => {});
});
const client = new OutboundHttpClient((host) =>
  host === 'hangs.example' ? new Promise(() => {}) : Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
);
after(async () => {
  client.close();
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => tarpit.close(() => resolve()));
});

test('a host that never resolves fails at the connect timeout', async () => {
  const outcome = await client.post('http://hangs.example/hook', {}, '{}', { allowPrivate: true, timeoutMs: 5_000, connectTimeoutMs: 200 });
  assert.equal(outcome.statusCode, null);
  assert.equal(outcome.error, 'could not connect within 0.2 s');
  assert.ok(outcome.durationMs < 2_000, `gave up after ${outcome.durationMs} ms`);
});

test('a receiver that connects and never answers runs into the answer timeout, not the connect one', async () => {
  await new Promise<void>((resolve) => tarpit.listen(0, '127.0.0.1', resolve));
  const url = `http://tarpit.example:${(tarpit.address() as AddressInfo).port}/hook`;
  const outcome = await client.post(url, {}, '{}', { allowPrivate: true, timeoutMs: 600, connectTimeoutMs: 200 });
  assert.match(outcome.error ?? '', /^timed out/);
  assert.ok(outcome.durationMs >= 500, `waited ${outcome.durationMs} ms for the answer`);
});
