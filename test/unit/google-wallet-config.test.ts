// The Google Wallet configuration: off unless both the issuer and the key are given, the key read
// inline or from a file, and a key or URL that cannot work stops the start with its name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../helpers/config-problems.ts';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KEY = {
  type: 'service_account',
  client_email: 'wallet@project.iam.gserviceaccount.com',
  private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
  token_uri: 'https://oauth2.googleapis.com/token',
};

test('off by default; on with an issuer and a key, Google’s API by default', () => {
  assert.equal(loadConfig({}).googleWallet, null);
  const c = loadConfig({ GOOGLE_WALLET_ISSUER_ID: '3388000000022123456', GOOGLE_WALLET_SERVICE_ACCOUNT: JSON.stringify(KEY) });
  assert.deepEqual(c.googleWallet, {
    issuerId: '3388000000022123456',
    serviceAccount: { clientEmail: KEY.client_email, privateKey: KEY.private_key, tokenUri: KEY.token_uri },
    apiUrl: 'https://walletobjects.googleapis.com',
  });
});

test('the key from GOOGLE_WALLET_SERVICE_ACCOUNT_FILE', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rb-gw-'));
  try {
    const file = path.join(dir, 'key.json');
    writeFileSync(file, JSON.stringify(KEY));
    const c = loadConfig({ GOOGLE_WALLET_ISSUER_ID: '42', GOOGLE_WALLET_SERVICE_ACCOUNT_FILE: file });
    assert.equal(c.googleWallet?.serviceAccount.clientEmail, KEY.client_email);
    assert.match(
      configProblems({ GOOGLE_WALLET_ISSUER_ID: '42', GOOGLE_WALLET_SERVICE_ACCOUNT_FILE: path.join(dir, 'missing.json') })[0]!,
      /cannot read GOOGLE_WALLET_SERVICE_ACCOUNT_FILE/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('each mistake is named: half a configuration, a bad issuer id, a key that is not one, an http API', () => {
  assert.match(configProblems({ GOOGLE_WALLET_ISSUER_ID: '42' })[0]!, /must be set together/);
  assert.match(configProblems({ GOOGLE_WALLET_SERVICE_ACCOUNT: JSON.stringify(KEY) })[0]!, /must be set together/);
  const key = JSON.stringify(KEY);
  assert.match(
    configProblems({ GOOGLE_WALLET_ISSUER_ID: 'my-shop', GOOGLE_WALLET_SERVICE_ACCOUNT: key })[0]!,
    /GOOGLE_WALLET_ISSUER_ID must be the issuer's number/,
  );
  assert.match(configProblems({ GOOGLE_WALLET_ISSUER_ID: '42', GOOGLE_WALLET_SERVICE_ACCOUNT: '{not json' })[0]!, /not JSON/);
  const badKey = JSON.stringify({ ...KEY, private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' });
  assert.match(configProblems({ GOOGLE_WALLET_ISSUER_ID: '42', GOOGLE_WALLET_SERVICE_ACCOUNT: badKey })[0]!, /not an RSA private key/);
  assert.match(
    configProblems({
      GOOGLE_WALLET_ISSUER_ID: '42',
      GOOGLE_WALLET_SERVICE_ACCOUNT: key,
      GOOGLE_WALLET_API_URL: 'http://wallet.example.com',
    })[0]!,
    /GOOGLE_WALLET_API_URL must be an https URL/,
  );
});
