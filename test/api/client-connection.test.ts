// The typed client (@readybell/client) says which URL it could not reach, with the network error,
// after its retries, instead of fetch's bare "TypeError: fetch failed" (issue #25).
// One engine: the typed client against a server that is not there: no store is involved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, ReadybellConnectionError } from '../../packages/client/src/index.js';
import { freePort } from '../helpers/free-port.ts';

test('a server that cannot be reached: ReadybellConnectionError naming the URL and the cause, after every attempt', async () => {
  const port = await freePort(); // nothing listens there
  const baseUrl = `http://127.0.0.1:${port}`;
  const waits: number[] = [];
  const client = createClient({ baseUrl, apiKey: 'rk_test_x', maxAttempts: 3, sleep: async (ms: number) => void waits.push(ms) });
  const err = await client.GET('/v1/tickets', { params: { query: { status: 'ready' } } }).then(
    () => assert.fail('resolved'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ReadybellConnectionError, String(err));
  assert.equal(err.name, 'ReadybellConnectionError');
  assert.equal(err.url, `${baseUrl}/v1/tickets?status=ready`);
  assert.equal(err.attempts, 3);
  assert.equal(waits.length, 2, 'retried before giving up');
  assert.match(
    err.message,
    new RegExp(
      `^could not reach readybell at ${baseUrl.replaceAll('.', '\\.')}/v1/tickets\\?status=ready: connect ECONNREFUSED .* \\(3 attempts\\)$`,
    ),
  );
  assert.ok(err.cause instanceof TypeError, 'the last attempt’s own error is kept');
});

test("the caller's own abort is thrown as it is, not as a connection error", async () => {
  const client = createClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: 'rk_test_x' });
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(client.GET('/v1/branch', { signal: controller.signal }), (e: Error) => e.name === 'AbortError');
});
