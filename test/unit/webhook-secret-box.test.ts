import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { parseSecretsKey, SecretBox } from '../../src/domain/secret-box.ts';
import { loadConfig, ConfigError } from '../../src/config.ts';

const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';

test('without a key, secrets are stored as generated', () => {
  const box = new SecretBox(null);
  assert.equal(box.seal(SECRET, 'we_1'), SECRET);
  assert.equal(box.open(SECRET, 'we_1'), SECRET);
});

test('with a key, secrets are sealed, open only for their own endpoint, and never readable as stored', () => {
  const box = new SecretBox(randomBytes(32));
  const sealed = box.seal(SECRET, 'we_1');
  assert.match(sealed, /^enc:v1:/);
  assert.ok(!sealed.includes('whsec_'));
  assert.notEqual(box.seal(SECRET, 'we_1'), sealed, 'a fresh nonce every time');
  assert.equal(box.open(sealed, 'we_1'), SECRET);
  assert.throws(() => box.open(sealed, 'we_2'));
  assert.throws(() => new SecretBox(randomBytes(32)).open(sealed, 'we_1'));
  assert.throws(() => new SecretBox(null).open(sealed, 'we_1'), /WEBHOOK_SECRETS_KEY/);
  // Secrets stored before the key was set still open.
  assert.equal(box.open(SECRET, 'we_1'), SECRET);
});

test('WEBHOOK_SECRETS_KEY takes 32 bytes as hex or base64, and nothing else', () => {
  const key = randomBytes(32);
  assert.deepEqual(parseSecretsKey(key.toString('hex')), key);
  assert.deepEqual(parseSecretsKey(key.toString('base64')), key);
  assert.deepEqual(parseSecretsKey(key.toString('base64url')), key);
  for (const bad of ['', 'short', randomBytes(16).toString('hex'), randomBytes(33).toString('base64')])
    assert.equal(parseSecretsKey(bad), null);
  assert.deepEqual(loadConfig({ WEBHOOK_SECRETS_KEY: key.toString('hex') }).webhookSecretsKey, key);
  assert.equal(loadConfig({}).webhookSecretsKey, null);
  assert.throws(() => loadConfig({ WEBHOOK_SECRETS_KEY: 'nope' }), ConfigError);
});
