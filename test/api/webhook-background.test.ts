// Deliveries by the running background worker (no runOnce): woken by the commit, and never held
// back by another endpoint's slow receiver. Secrets sealed with WEBHOOK_SECRETS_KEY still sign.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, createTicket, deliveriesOf } from '../helpers/webhooks.ts';
import { eventually } from '../helpers/eventually.ts';

let t: TestApp;
let slow: WebhookReceiver;
let fast: WebhookReceiver;
before(async () => {
  t = await startTestApp({ workers: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_SECRETS_KEY: randomBytes(32).toString('hex') } });
  slow = await new WebhookReceiver().start();
  fast = await new WebhookReceiver().start();
});
after(async () => {
  await slow.close();
  await fast.close();
  await t.close();
});

test('a receiver that takes its time does not hold back deliveries to the others', async () => {
  const a = await createEndpoint(t, { url: `${slow.url}/hook` });
  const b = await createEndpoint(t, { url: `${fast.url}/hook` });
  slow.secrets = [a.secret];
  fast.secrets = [b.secret];
  slow.answer = () => 'hold';
  await createTicket(t);
  await slow.waitFor(1);
  await createTicket(t);
  await fast.waitFor(2);
  assert.deepEqual(
    fast.deliveries.map((d) => d.verifiedBy),
    [[b.secret], [b.secret]],
  );
  await slow.waitFor(2); // the second event reaches the slow receiver too, beside the held request
  // The worker records each success just after the receiver answered.
  await eventually(
    async () => (await deliveriesOf(t, b.id)).filter((d) => d.status === 'succeeded').length === 2,
    'both deliveries recorded',
  );
});

test('with WEBHOOK_SECRETS_KEY the stored secret is sealed, and deliveries still verify with the whsec_ secret', async () => {
  const e = await createEndpoint(t, { url: `${fast.url}/sealed` });
  const [row] = await t.app.services.db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [e.id]);
  assert.match(row!.secret, /^enc:v1:/);
  assert.ok(!row!.secret.includes(e.secret.slice(6)));
  assert.equal((await t.request('GET', `/v1/webhook_endpoints/${e.id}/secret`)).body.secret, e.secret);
  fast.secrets = [e.secret];
  const before = fast.deliveries.length;
  const ping = await t.request('POST', `/v1/webhook_endpoints/${e.id}/test`);
  assert.equal(ping.status, 202);
  await fast.waitFor(before + 1);
  const last = fast.deliveries.at(-1)!;
  assert.equal(last.event!.type, 'ping');
  assert.deepEqual(last.verifiedBy, [e.secret]);
});
