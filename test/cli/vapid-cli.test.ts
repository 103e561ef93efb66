// `readybell vapid`: the public key the server hands to browsers, the same from the CLI and every
// node; `--rotate` replaces a stored pair (and drops subscriptions made for the old one), and
// refuses when the keys come from the environment.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import webpush from 'web-push';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';
import { runCli, type CliRun } from '../helpers/cli.ts';

let store: TestStore;
before(async () => {
  store = await createTestStore();
});
after(() => store.drop());

function cli(args: string[], extra: Record<string, string> = {}): Promise<CliRun> {
  return runCli({ ...store.env, ...extra }, args);
}

async function serverKey(): Promise<string> {
  const app = await createApp(loadConfig({ LOG_LEVEL: 'silent', PORT: '0', ...store.env }));
  try {
    const res = await app.server.inject({ method: 'GET', url: '/push/vapid.json' });
    return (res.json() as { public_key: string }).public_key;
  } finally {
    await app.close();
  }
}

test('the CLI prints the stored key the server serves, and --rotate replaces it', async () => {
  const shown = await cli(['vapid', '--json']);
  assert.equal(shown.code, 0, shown.stderr);
  const first = JSON.parse(shown.stdout) as { public_key: string; source: string };
  assert.equal(first.source, 'store');
  assert.equal(await serverKey(), first.public_key);
  assert.equal(JSON.parse((await cli(['vapid', '--json'])).stdout).public_key, first.public_key, 'generated once');

  const rotated = await cli(['vapid', '--rotate']);
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.match(rotated.stdout, /New VAPID public key/);
  assert.match(rotated.stdout, /Restart every node/);
  const second = await serverKey();
  assert.notEqual(second, first.public_key);
  assert.ok(rotated.stdout.includes(second));
});

test('keys from the environment are shown as such and cannot be rotated from the CLI', async () => {
  const keys = webpush.generateVAPIDKeys();
  const env = { VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey };
  const shown = await cli(['vapid', '--json'], env);
  assert.deepEqual(JSON.parse(shown.stdout).public_key, keys.publicKey);
  const refused = await cli(['vapid', '--rotate'], env);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY/);
  const broken = await cli(['vapid'], { ...env, VAPID_PRIVATE_KEY: webpush.generateVAPIDKeys().privateKey });
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /does not belong/);
});
