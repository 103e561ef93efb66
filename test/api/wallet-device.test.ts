// An iPhone plays Apple's PassKit web service against readybell, with a fake APNs that checks the
// client certificate, the topic and the path (issue 28): add → register → ready → APNs push → the
// device lists what changed and fetches it → the ready answers channel_used "wallet". Also: 410
// from APNs removes the registration; a close tells the device and erases the registrations;
// If-Modified-Since → 304; a missing or wrong ApplePass token, or another tenant's, is 401.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { makeWalletCerts, PASS_TYPE_ID, type WalletCerts } from '../helpers/wallet-certs.ts';
import { FakeApns } from '../helpers/fake-apns.ts';
import { WalletDevice } from '../helpers/wallet-device.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeClock } from '../helpers/clock.ts';
import { WALLET_CLOSE_GRACE_MS } from '../../src/channels/wallet/close-job.ts';
import { WALLET_CONFIRM_WINDOW_MS } from '../../src/channels/wallet/apple/apple-issuer.ts';

let t: TestApp;
let certs: WalletCerts;
let apns: FakeApns;
const clock = new FakeClock();
/** Devices that fetch as soon as APNs pushes to them, like an iPhone online. */
const online = new Map<string, WalletDevice>();

before(async () => {
  certs = makeWalletCerts();
  apns = await new FakeApns({ ...certs.server, ca: certs.ca }).start();
  apns.onPush(
    (p) =>
      void online
        .get(p.token)
        ?.pushed()
        .catch(() => {}),
  );
  t = await startTestApp({ env: { ...certs.env(apns.url), RING_DEADLINE_MS: '4000' }, workers: true, clock });
});
after(async () => {
  await t?.close();
  await apns?.close();
  certs?.drop();
});

async function liveTicket(key = t.tenant.liveKey): Promise<any> {
  const res = await t.request('POST', '/v1/tickets', { key, body: { queue: 'A' } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** The customer taps "Add to Apple Wallet" and the phone registers for updates. */
async function addToWallet(ticket: any, device = new WalletDevice(t.url)): Promise<{ device: WalletDevice; serial: string }> {
  const res = await fetch(`${ticket.url.replace('http://localhost:3000', t.url)}/wallet/apple.pkpass`);
  assert.equal(res.status, 200);
  const json = device.add(new Uint8Array(await res.arrayBuffer()), res.headers.get('last-modified'));
  assert.equal((await device.register(json.serialNumber)).status, 201, 'a new registration');
  return { device, serial: json.serialNumber };
}

const registrations = async (ticketId: string): Promise<number> =>
  Number(
    (await t.app.services.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM wallet_registrations WHERE ticket_id = $1', [ticketId]))[0]!.n,
  );

test('ready pushes through APNs, the phone fetches the updated pass, and the ready answers channel_used "wallet"', async () => {
  const ticket = await liveTicket();
  const { device, serial } = await addToWallet(ticket);
  assert.equal((await device.register(serial)).status, 200, 'registering again is not a new registration');
  online.set(device.pushToken, device);

  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`, { key: t.tenant.liveKey });
  assert.equal(ready.status, 200);
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [true, 'wallet']);

  const [push, ...more] = apns.pushesTo(device.pushToken);
  assert.deepEqual(more, [], 'one push for one ring');
  assert.equal(push!.path, `/3/device/${device.pushToken}`);
  assert.equal(push!.topic, PASS_TYPE_ID);
  assert.equal(push!.body, '{}');
  assert.match(push!.clientSubject, new RegExp(`UID=${PASS_TYPE_ID.replace(/\./g, '\\.')}`), 'authenticated with the pass certificate');
  // The fetch is the receipt; the signed pass reaches the phone a signing later.
  await eventually(() => device.status(serial) === 'Your order is ready!', 'the phone has the ready pass');
  const change = device.passes.get(serial)!.json.generic.secondaryFields[0].changeMessage;
  assert.equal(change, `${ticket.display_number}: %@`);

  // The ring's record says so too.
  const events = await t.request('GET', '/v1/events?type=ticket.rung&limit=100', { key: t.tenant.liveKey });
  const rung = events.body.data.find((e: any) => e.data.object.id === ticket.id);
  assert.equal(rung.data.ring.channel_used, 'wallet');
  assert.deepEqual(
    rung.data.ring.channels.find((c: any) => c.channel === 'wallet'),
    { channel: 'wallet', delivered: true, detail: 'apple: the device fetched the updated pass' },
  );

  // Nothing changed since: the device's copy is current.
  assert.equal((await device.fetchLatest(serial)).status, 304);
  assert.equal((await device.fetchLatest(serial, { ifModifiedSince: null })).status, 200);
  assert.deepEqual(await device.pushed(), [], 'nothing changed since the tag');
});

test('a phone that fetches after the deadline: the ready says nothing reached yet, and the ring job records the wallet', async () => {
  const ticket = await liveTicket();
  const { device, serial } = await addToWallet(ticket);
  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`, { key: t.tenant.liveKey });
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [false, 'none'], 'not known to have reached the customer yet');
  assert.equal(apns.pushesTo(device.pushToken).length, 1);
  // The phone was offline; it comes back and asks.
  assert.deepEqual(await device.pushed(), [serial]);
  clock.advance(10_000);
  const rung = async () =>
    (await t.request('GET', '/v1/events?type=ticket.rung&limit=100', { key: t.tenant.liveKey })).body.data.find(
      (e: any) => e.data.object.id === ticket.id,
    );
  await eventually(async () => (await rung()) !== undefined, 'the ring job recorded the ring', 15_000);
  assert.equal((await rung()).data.ring.channel_used, 'wallet');
  assert.equal(apns.pushesTo(device.pushToken).length, 1, 'asking again did not push again');
});

test('a phone that never fetches holds the SMS fallback back only for a while: then the text goes', async () => {
  const business = await t.newTenant({ plan: 'business' });
  const res = await t.request('POST', '/v1/tickets', { key: business.testKey, body: { queue: 'A', customer_phone: '+14155550123' } });
  const { device } = await addToWallet(res.body);
  assert.ok(device.passes.size === 1);
  const ready = await t.request('POST', `/v1/tickets/${res.body.id}/ready`, { key: business.testKey });
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [false, 'none'], 'no text while the pass may still be fetched');
  clock.advance(WALLET_CONFIRM_WINDOW_MS + 5_000);
  const rung = async () =>
    (await t.request('GET', '/v1/events?type=ticket.rung&limit=100', { key: business.testKey })).body.data.find(
      (e: any) => e.data.object.id === res.body.id,
    );
  await eventually(async () => (await rung()) !== undefined, 'the ring job recorded the ring', 15_000);
  const ring = (await rung()).data.ring;
  assert.equal(ring.channel_used, 'sms');
  assert.equal(ring.channels.find((c: any) => c.channel === 'wallet').delivered, false);
});

test('APNs answering 410 removes the registration, and the ring is not counted as reached', async () => {
  const ticket = await liveTicket();
  const { device } = await addToWallet(ticket);
  apns.unregister(device.pushToken);
  const ready = await t.request('POST', `/v1/tickets/${ticket.id}/ready`, { key: t.tenant.liveKey });
  assert.deepEqual([ready.body.rang, ready.body.channel_used], [false, 'none']);
  assert.equal(apns.pushesTo(device.pushToken).length, 1);
  assert.equal(await registrations(ticket.id), 0);
});

test('a close changes the pass once more, tells the phone, and erases the registrations', async () => {
  const ticket = await liveTicket();
  const { device, serial } = await addToWallet(ticket);
  online.set(device.pushToken, device);
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/collect`, { key: t.tenant.liveKey })).status, 200);
  await eventually(() => apns.pushesTo(device.pushToken).length === 1, 'the phone told of the close');
  await eventually(() => device.status(serial) === 'Picked up. Enjoy!', 'the phone fetched the closed pass');
  assert.equal(device.passes.get(serial)!.json.voided, true);
  // The registration stays while the phone may still be asking what changed, then goes.
  assert.equal(await registrations(ticket.id), 1);
  clock.advance(WALLET_CLOSE_GRACE_MS);
  await eventually(async () => (await registrations(ticket.id)) === 0, 'the registrations erased');
  assert.equal(apns.pushesTo(device.pushToken).length, 1, 'told once');
  // The pass still answers its device, which may unregister; nothing re-registers a closed ticket's pass.
  assert.equal((await device.register(serial)).status, 200);
  assert.equal(await registrations(ticket.id), 0);
  assert.equal((await device.unregister(serial)).status, 200);
});

test("a missing or wrong ApplePass token, or another tenant's, is 401; another pass type is 404", async () => {
  const mine = await addToWallet(await liveTicket());
  const other = await t.newTenant();
  const theirs = await addToWallet(await liveTicket(other.liveKey));
  const theirToken = theirs.device.passes.get(theirs.serial)!.json.authenticationToken;

  const missing = await fetch(`${t.url}/wallet/apple/v1/passes/${PASS_TYPE_ID}/${mine.serial}`);
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get('content-type') ?? '', /application\/problem\+json/);
  assert.equal((await mine.device.fetchLatest(mine.serial, { token: 'x'.repeat(43) })).status, 401);
  assert.equal(
    (await mine.device.fetchLatest(mine.serial, { token: theirToken })).status,
    401,
    "another tenant's token opens nothing of mine",
  );
  assert.equal((await mine.device.register(mine.serial, theirToken)).status, 401);
  const unknown = await fetch(`${t.url}/wallet/apple/v1/passes/${PASS_TYPE_ID}/nosuchserial`, {
    headers: { authorization: `ApplePass ${theirToken}` },
  });
  assert.equal(unknown.status, 401);
  const otherType = await fetch(`${t.url}/wallet/apple/v1/passes/pass.other.type/${mine.serial}`, {
    headers: { authorization: `ApplePass ${mine.device.passes.get(mine.serial)!.json.authenticationToken}` },
  });
  assert.equal(otherType.status, 404);
  const log = await fetch(`${t.url}/wallet/apple/v1/log`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ logs: ['Web service error for pass.test: 401'] }),
  });
  assert.equal(log.status, 200);
  const badLog = await fetch(`${t.url}/wallet/apple/v1/log`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"logs":7}',
  });
  assert.equal(badLog.status, 422);
});

test('test mode never calls APNs: the helper plays the phone, and the ring is recorded as reached through the wallet', async () => {
  const res = await t.request('POST', '/v1/tickets', { body: { queue: 'A' } });
  const ticket = res.body;
  const { device, serial } = await addToWallet(ticket);
  const pushes = apns.pushes.length;
  const ready = t.request('POST', `/v1/tickets/${ticket.id}/ready`);
  // The phone asks as soon as the pass has changed (the simulated push told it).
  await eventually(async () => (await device.pushed()).includes(serial), 'the pass changed for the ring');
  const answer = await ready;
  assert.deepEqual([answer.body.rang, answer.body.channel_used], [true, 'wallet']);
  assert.equal(apns.pushes.length, pushes, 'no APNs request in test mode');
  assert.equal(device.status(serial), 'Your order is ready!');
});
