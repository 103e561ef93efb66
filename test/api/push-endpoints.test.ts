// Push endpoints (issue #25): a subscription names the push service's HTTPS port or none, and a
// push connects to the very address its host was checked at: the host is resolved once, by the
// resolver the address check uses, at connection time (no second lookup for DNS rebinding to
// answer differently). The same outbound client and check as webhooks (decision 0012's SSRF rules).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestPushService } from '../helpers/push-service.ts';
import { fakeLookup } from '../helpers/webhooks.ts';
import type { HostLookup } from '../../src/core/host-lookup.ts';

let strict: TestApp;
let lenient: TestApp;
let push: TestPushService;
const strictNames: Record<string, string> = {};
const lenientNames: Record<string, string> = {};
const lookups: string[] = [];
const counted =
  (lookup: HostLookup): HostLookup =>
  (host) => {
    lookups.push(host);
    return lookup(host);
  };

before(async () => {
  push = await new TestPushService().start();
  strict = await startTestApp({ webhookLookup: fakeLookup(strictNames) });
  lenient = await startTestApp({ env: { PUSH_ALLOW_INSECURE_ENDPOINTS: 'true' }, webhookLookup: counted(fakeLookup(lenientNames)) });
  push.expectedVapidKey = ((await (await fetch(`${lenient.url}/push/vapid.json`)).json()) as { public_key: string }).public_key;
});
after(async () => {
  await strict?.close();
  await lenient?.close();
  await push?.close();
});

async function ticketSubscribedTo(app: TestApp, endpoint?: string): Promise<{ id: string; status: number; text: string }> {
  const ticket = (await app.request('POST', '/v1/tickets', { body: {} })).body;
  const sub = push.subscribe();
  const res = await fetch(`${ticket.url.replace('http://localhost:3000', app.url)}/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...sub.json, endpoint: endpoint ?? sub.json.endpoint }),
  });
  return { id: ticket.id, status: res.status, text: await res.text() };
}

async function pushDetail(app: TestApp, ticketId: string): Promise<string> {
  const rows = await app.app.services.db.query<{ result: string | null }>('SELECT result FROM rings WHERE ticket_id = $1 ORDER BY seq', [
    ticketId,
  ]);
  const result = JSON.parse(rows.at(-1)!.result!);
  return result.channels.find((c: { channel: string }) => c.channel === 'push').detail;
}

test("a push endpoint on any port but the push services' HTTPS port is refused", async () => {
  for (const endpoint of ['https://fcm.googleapis.com:22/fcm/send/abc', 'https://updates.push.services.mozilla.com:8443/wpush/v2/abc']) {
    const res = await ticketSubscribedTo(strict, endpoint);
    assert.equal(res.status, 422, res.text);
    const problem = JSON.parse(res.text);
    assert.deepEqual(
      problem.errors.map((e: { pointer: string }) => e.pointer),
      ['/endpoint'],
    );
    assert.match(problem.detail, /HTTPS port \(443\)/);
  }
  for (const endpoint of ['https://fcm.googleapis.com/fcm/send/abc', 'https://fcm.googleapis.com:443/fcm/send/abc']) {
    const res = await ticketSubscribedTo(strict, endpoint);
    assert.equal(res.status, 201, `${endpoint}: ${res.text}`);
  }
});

test('a push service name that turns private after the subscription (DNS rebinding) is refused at connection time', async () => {
  strictNames['push.example.com'] = '93.184.216.34';
  const ticket = await ticketSubscribedTo(strict, 'https://push.example.com/wpush/rebind');
  assert.equal(ticket.status, 201, ticket.text);
  strictNames['push.example.com'] = '127.0.0.1';
  const ready = await strict.request('POST', `/v1/tickets/${ticket.id}/ready`);
  assert.equal(ready.body.channel_used, 'none', ready.text);
  assert.match(await pushDetail(strict, ticket.id), /refused: push\.example\.com resolves to a loopback address \(127\.0\.0\.1\)/);
});

test('the push goes to the address the checked lookup returned, looked up once', async () => {
  // Where private addresses are allowed (a local push service), the name resolves only through
  // the service's resolver, which says 127.0.0.1: a second, system lookup would find nothing.
  lenientNames['push.readybell.test'] = '127.0.0.1';
  const origin = push.url;
  // The push service's own name: its subscriptions' endpoints, and the audience it expects.
  push.url = origin.replace('127.0.0.1', 'push.readybell.test');
  try {
    const ticket = await ticketSubscribedTo(lenient);
    assert.equal(ticket.status, 201, ticket.text);
    lookups.length = 0;
    const ready = await lenient.request('POST', `/v1/tickets/${ticket.id}/ready`);
    assert.deepEqual([ready.body.rang, ready.body.channel_used], [true, 'push'], await pushDetail(lenient, ticket.id));
    assert.deepEqual(lookups, ['push.readybell.test'], 'one lookup, the checked one');
    assert.deepEqual(push.failures, []);
  } finally {
    push.url = origin;
  }
});
