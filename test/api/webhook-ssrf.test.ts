// Server-side request forgery: webhook URLs must not turn the service into a proxy into its own
// network. Live endpoints never reach private targets; test endpoints only where the operator
// allows it. Checked at creation and again at connection time (DNS rebinding).
// One engine: the address policy is applied before and while connecting, whatever stores the endpoint.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, createTicket, deliveriesOf, fakeLookup } from '../helpers/webhooks.ts';

let strict: TestApp;
let lenient: TestApp;
let receiver: WebhookReceiver;
const names: Record<string, string> = {
  'pos.example.com': '93.184.216.34',
  'internal.example.com': '127.0.0.1',
  'metadata.example.com': '169.254.169.254',
  'v6.example.com': '::1',
};
// Each app's resolver reads its own table at every lookup; a test adds the names it needs.
const strictNames = { ...names };
const lenientNames = { ...names };

before(async () => {
  strict = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' }, webhookLookup: fakeLookup(strictNames) });
  lenient = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, webhookLookup: fakeLookup(lenientNames) });
  receiver = await new WebhookReceiver().start();
});
after(async () => {
  await receiver.close();
  await strict.close();
  await lenient.close();
});

const LIVE_REFUSED = [
  'http://169.254.169.254/latest/meta-data/',
  'https://169.254.169.254/latest/meta-data/',
  'http://[::1]/',
  'https://[::1]/',
  'https://localhost/',
  'https://app.localhost:8443/',
  'https://internal.example.com/',
  'https://metadata.example.com/',
  'https://v6.example.com/',
  'https://127.0.0.1/',
  'https://2130706433/',
  'https://0x7f.0.0.1/',
  'https://[::ffff:127.0.0.1]/',
  'https://[::ffff:a9fe:a9fe]/',
  'https://0.0.0.0/',
  'https://10.1.2.3/',
  'https://192.168.1.10/',
  'https://172.16.0.1/',
  'https://100.64.0.1/',
  'https://[fd00::1]/',
  'https://[fe80::1]/',
  'https://224.0.0.1/',
];

test('live mode refuses private, loopback, link-local and other non-public targets, even where test mode may use them', async () => {
  for (const app of [strict, lenient]) {
    for (const url of LIVE_REFUSED) {
      const res = await app.request('POST', '/v1/webhook_endpoints', { key: app.tenant.liveKey, body: { url } });
      assert.equal(res.status, 422, `${url}: ${res.text}`);
      assert.equal(res.body.errors[0].pointer, '/url');
    }
  }
  const ok = await strict.request('POST', '/v1/webhook_endpoints', {
    key: strict.tenant.liveKey,
    body: { url: 'https://pos.example.com/hook' },
  });
  assert.equal(ok.status, 201, ok.text);
});

test('test mode: private targets only where the operator allows them', async () => {
  for (const url of ['http://127.0.0.1:9/', 'http://[::1]:9/', 'http://localhost:9/', 'http://internal.example.com/']) {
    assert.equal((await strict.request('POST', '/v1/webhook_endpoints', { body: { url } })).status, 422, url);
    assert.equal((await lenient.request('POST', '/v1/webhook_endpoints', { body: { url } })).status, 201, url);
  }
  // Never a receiver, whatever the setting.
  for (const url of ['http://0.0.0.0:9/', 'http://224.0.0.1/', 'http://[ff02::1]/', 'http://255.255.255.255/']) {
    assert.equal((await lenient.request('POST', '/v1/webhook_endpoints', { body: { url } })).status, 422, url);
  }
});

test('a name that turns private after creation (DNS rebinding) is refused at connection time', async () => {
  strictNames['rebind.example.com'] = '93.184.216.34';
  const e = await createEndpoint(strict, { url: `http://rebind.example.com:${receiver.port}/hook` });
  strictNames['rebind.example.com'] = '127.0.0.1';
  await createTicket(strict);
  await strict.app.runner.runOnce();
  assert.equal(receiver.deliveries.length, 0, 'nothing reached the private address');
  const [delivery] = await deliveriesOf(strict, e.id);
  assert.equal(delivery.status, 'pending');
  assert.equal(delivery.attempts[0].response_status, null);
  assert.match(delivery.attempts[0].error, /refused: rebind\.example\.com resolves to a loopback address \(127\.0\.0\.1\)/);
});

test('where private targets are allowed, the connection goes to the address the checked lookup returned', async () => {
  // From here on only the receiver's name resolves: earlier tests' endpoints get nowhere.
  for (const name of Object.keys(lenientNames)) delete lenientNames[name];
  lenientNames['receiver.example.com'] = '127.0.0.1';
  const e = await createEndpoint(lenient, { url: `http://receiver.example.com:${receiver.port}/hook` });
  receiver.secrets = [e.secret];
  await createTicket(lenient);
  await lenient.app.runner.runOnce();
  assert.equal(receiver.deliveries.length, 1);
  assert.equal(receiver.deliveries[0]!.verifiedBy.length, 1);
});
