import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/domain/errors.ts';
import { checkWebhookUrl, checkWebhookUrlSyntax, privateTargetsAllowed } from '../../src/webhooks/url-policy.ts';

const refused = (fn: () => unknown, detail: RegExp): void => {
  assert.throws(fn, (err: unknown) => err instanceof AppError && err.code === 'validation-failed' && detail.test(err.detail));
};

test('WEBHOOK_ALLOW_PRIVATE only ever opens test mode', () => {
  assert.equal(privateTargetsAllowed({ webhookAllowPrivate: true }, 'test'), true);
  assert.equal(privateTargetsAllowed({ webhookAllowPrivate: true }, 'live'), false);
  assert.equal(privateTargetsAllowed({ webhookAllowPrivate: false }, 'test'), false);
});

test('URL shape: scheme, credentials, fragment, length; normalised', () => {
  assert.equal(checkWebhookUrlSyntax('HTTPS://POS.Example.com:443/a?b=1', 'live', false), 'https://pos.example.com/a?b=1');
  refused(() => checkWebhookUrlSyntax('http://pos.example.com/', 'live', false), /https/);
  assert.equal(checkWebhookUrlSyntax('http://pos.example.com/', 'test', false), 'http://pos.example.com/');
  refused(() => checkWebhookUrlSyntax('javascript:alert(1)', 'test', true), /https/);
  refused(() => checkWebhookUrlSyntax('file:///etc/passwd', 'test', true), /https/);
  refused(() => checkWebhookUrlSyntax('https://a:b@pos.example.com/', 'test', true), /password/);
  refused(() => checkWebhookUrlSyntax('https://pos.example.com/#top', 'test', true), /fragment/);
  refused(() => checkWebhookUrlSyntax('pos.example.com/hook', 'test', true), /absolute/);
  refused(() => checkWebhookUrlSyntax(`https://pos.example.com/${'x'.repeat(2048)}`, 'test', true), /2048/);
});

test('literal addresses, in every spelling, are checked without DNS', () => {
  for (const url of [
    'https://127.1/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:0:0:1]/',
    'https://localhost./',
    'https://x.localhost/',
  ]) {
    refused(() => checkWebhookUrlSyntax(url, 'live', false), /public address/);
  }
  assert.equal(checkWebhookUrlSyntax('http://127.0.0.1:8080/', 'test', true), 'http://127.0.0.1:8080/');
  refused(() => checkWebhookUrlSyntax('http://0.0.0.0:8080/', 'test', true), /unspecified/);
});

test('names are resolved when private targets are refused: every answer must be public; no answer is accepted', async () => {
  const lookup = async (host: string) => {
    if (host === 'mixed.example.com')
      return [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ];
    if (host === 'ok.example.com')
      return [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ];
    throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  const strict = { webhookAllowPrivate: false };
  await assert.rejects(checkWebhookUrl('https://mixed.example.com/', 'live', strict, lookup), /10\.0\.0\.5/);
  assert.equal(await checkWebhookUrl('https://ok.example.com/', 'live', strict, lookup), 'https://ok.example.com/');
  assert.equal(await checkWebhookUrl('https://not-yet.example.com/', 'live', strict, lookup), 'https://not-yet.example.com/');
  // Allowed private targets need no lookup at all.
  let called = false;
  await checkWebhookUrl('http://anything.test/', 'test', { webhookAllowPrivate: true }, async () => {
    called = true;
    return [];
  });
  assert.equal(called, false);
});
