// POST /t/<token>/push with the default configuration: only https endpoints of public push
// services and well-formed RFC 8291 keys are stored; anything else is a 422 problem and changes
// nothing. Also: the VAPID key pair is generated once and shared by every node on the store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createECDH, randomBytes } from 'node:crypto';
import webpush from 'web-push';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const p256dh = (): string => {
  const e = createECDH('prime256v1');
  e.generateKeys();
  return e.getPublicKey().toString('base64url');
};
const good = () => ({
  endpoint: `https://fcm.googleapis.com/fcm/send/${randomBytes(8).toString('hex')}`,
  expirationTime: null,
  keys: { p256dh: p256dh(), auth: randomBytes(16).toString('base64url') },
});

async function newTicket(): Promise<{ id: string; path: string }> {
  const res = await t.request('POST', '/v1/tickets', { body: {} });
  return { id: res.body.id, path: new URL(res.body.url).pathname };
}

const post = (path: string, body: unknown, raw?: string) =>
  fetch(`${t.url}${path}/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ?? JSON.stringify(body),
  });

async function stored(ticketId: string): Promise<number> {
  const rows = await t.app.services.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM push_subscriptions WHERE ticket_id = $1', [
    ticketId,
  ]);
  return Number(rows[0]!.n);
}

test('a browser subscription of a public push service is stored and turns notifications on', async () => {
  const ticket = await newTicket();
  const res = await post(ticket.path, good());
  assert.equal(res.status, 201);
  assert.deepEqual(await res.json(), { object: 'push_subscription', subscribed: true, notifications: 'push' });
  assert.equal(await stored(ticket.id), 1);
  const events = await t.request('GET', '/v1/events?type=ticket.customer_subscribed');
  assert.equal(events.body.data.filter((e: any) => e.data.object.id === ticket.id).length, 1);
});

test('bad subscriptions get a 422 problem naming the field, and nothing is stored or recorded', async () => {
  const ticket = await newTicket();
  const keys = good().keys;
  const compressed = Buffer.concat([Buffer.from([2]), randomBytes(32)]).toString('base64url');
  const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url');
  const cases: Array<[string, unknown, string]> = [
    ['plain http endpoint', { ...good(), endpoint: 'http://fcm.googleapis.com/fcm/send/x' }, '/endpoint'],
    ['loopback endpoint', { ...good(), endpoint: 'https://127.0.0.1/push' }, '/endpoint'],
    ['private network endpoint', { ...good(), endpoint: 'https://10.1.2.3/push' }, '/endpoint'],
    ['link-local (metadata) endpoint', { ...good(), endpoint: 'https://169.254.169.254/latest' }, '/endpoint'],
    ['localhost endpoint', { ...good(), endpoint: 'https://localhost:8443/push' }, '/endpoint'],
    ['not a URL', { ...good(), endpoint: 'push service' }, '/endpoint'],
    ['no endpoint', { keys }, '/endpoint'],
    ['p256dh compressed', { ...good(), keys: { ...keys, p256dh: compressed } }, '/keys/p256dh'],
    ['p256dh not on the curve', { ...good(), keys: { ...keys, p256dh: offCurve } }, '/keys/p256dh'],
    ['p256dh too short', { ...good(), keys: { ...keys, p256dh: randomBytes(33).toString('base64url') } }, '/keys/p256dh'],
    ['p256dh not base64url', { ...good(), keys: { ...keys, p256dh: 'not base64!' } }, '/keys/p256dh'],
    ['auth of 15 bytes', { ...good(), keys: { ...keys, auth: randomBytes(15).toString('base64url') } }, '/keys/auth'],
    ['auth missing', { ...good(), keys: { p256dh: keys.p256dh } }, '/keys/auth'],
    ['no keys', { endpoint: good().endpoint }, '/keys'],
    ['unknown field', { ...good(), extra: 1 }, '/extra'],
    ['an array', [good()], ''],
  ];
  for (const [name, body, pointer] of cases) {
    const res = await post(ticket.path, body);
    assert.equal(res.status, 422, name);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/, name);
    const problem = (await res.json()) as any;
    assert.equal(problem.code, 'validation-failed', name);
    assert.ok(
      problem.errors.some((e: any) => e.pointer === pointer),
      `${name}: ${JSON.stringify(problem.errors)}`,
    );
  }
  const broken = await post(ticket.path, null, '{"endpoint": ');
  assert.equal(broken.status, 400);
  assert.equal(((await broken.json()) as any).code, 'invalid-json');
  assert.equal(await stored(ticket.id), 0);
  const after = await t.request('GET', `/v1/tickets/${ticket.id}`);
  assert.equal(after.body.customer.notifications, 'none');
});

test('an unknown link is 404 and a closed ticket 409, both as problems', async () => {
  const unknown = await post('/t/AAAAAAAAAAAAAAAAAAAAAAAAAA', good());
  assert.equal(unknown.status, 404);
  assert.equal(((await unknown.json()) as any).code, 'not-found');
  const ticket = await newTicket();
  await t.request('POST', `/v1/tickets/${ticket.id}/cancel`);
  const closed = await post(ticket.path, good());
  assert.equal(closed.status, 409);
  assert.equal(((await closed.json()) as any).ticket_status, 'cancelled');
  assert.equal(await stored(ticket.id), 0);
});

test('a ticket keeps at most five subscriptions; the same endpoint twice is one', async () => {
  const ticket = await newTicket();
  const same = good();
  assert.equal((await post(ticket.path, same)).status, 201);
  assert.equal((await post(ticket.path, { ...same, keys: good().keys })).status, 201);
  assert.equal(await stored(ticket.id), 1);
  for (let i = 0; i < 7; i++) assert.equal((await post(ticket.path, good())).status, 201);
  assert.equal(await stored(ticket.id), 5);
});

test('the VAPID key pair is generated once and every node on the store signs with it', async () => {
  const first = ((await (await fetch(`${t.url}/push/vapid.json`)).json()) as any).public_key;
  const node2 = await createApp(t.app.services.config);
  try {
    const keys = await node2.services.db.query<{ value: string }>("SELECT value FROM service_settings WHERE name = 'vapid_keys'");
    assert.equal(keys.length, 1);
    assert.equal(JSON.parse(keys[0]!.value).public_key, first);
  } finally {
    await node2.close();
  }
});

test('VAPID keys from the configuration are used as given, and checked at start', async () => {
  const keys = webpush.generateVAPIDKeys();
  const env = {
    ...process.env,
    VAPID_PUBLIC_KEY: keys.publicKey,
    VAPID_PRIVATE_KEY: keys.privateKey,
    VAPID_SUBJECT: 'mailto:ops@example.com',
  };
  assert.deepEqual(loadConfig(env).push.vapid, { publicKey: keys.publicKey, privateKey: keys.privateKey });
  const other = webpush.generateVAPIDKeys();
  assert.throws(() => loadConfig({ ...env, VAPID_PRIVATE_KEY: other.privateKey }), /does not belong/);
  assert.throws(() => loadConfig({ ...env, VAPID_PRIVATE_KEY: '' }), /must be set together/);
  assert.throws(() => loadConfig({ ...env, VAPID_SUBJECT: 'ops@example.com' }), /VAPID_SUBJECT/);
  assert.throws(() => loadConfig({ SMS_ACCOUNT_SID: 'AC1' }), /must be set together/);
  assert.throws(
    () => loadConfig({ SMS_ACCOUNT_SID: 'AC1', SMS_AUTH_TOKEN: 'x', SMS_FROM: '+1', SMS_PROVIDER_URL: 'http://sms.example.com' }),
    /SMS_PROVIDER_URL/,
  );
  assert.equal(loadConfig({}).sms, null);
});
