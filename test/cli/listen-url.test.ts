// `readybell listen` sends the API key with every request: it refuses a plain-http --url (or
// READYBELL_URL) unless the service is on this machine, with a message that says why (issue #25).
// One engine: the `listen` client refuses a URL before it connects to any server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { parseListenArgs } from '../../src/cli/listen.ts';

const listen = (url: string) =>
  runCli({ READYBELL_API_KEY: 'rk_test_0000000000000000000000000000' }, [
    'listen',
    '--forward-to',
    'http://localhost:9/hook',
    '--url',
    url,
  ]);

test('a plain-http --url to another host is refused before anything is sent', async () => {
  for (const url of ['http://pickup.example.com', 'http://192.168.1.20:3000', 'http://[2001:db8::1]']) {
    const r = await listen(url);
    assert.equal(r.code, 2, `${url}: ${r.stderr}`);
    assert.match(r.stderr, /is plain http, which would send the API key in clear/, url);
    assert.match(r.stderr, /Use the https URL/, url);
  }
});

test('https anywhere, and plain http to this machine, are accepted', () => {
  // Parsed only: running the listener would connect.
  for (const url of [
    'https://pickup.example.com',
    'http://localhost:3000',
    'http://127.0.0.1:3000',
    'http://[::1]:3000',
    'http://app.localhost',
  ]) {
    const o = parseListenArgs(['--forward-to', 'http://localhost:9/hook', '--url', url], { READYBELL_API_KEY: 'rk_test_x' });
    assert.equal(o === 'help' ? o : o.baseUrl, url);
  }
});
