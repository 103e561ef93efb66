// Google Wallet (issue 28, item 4): the save link a customer taps, and the pass's updates on rings
// and closes, against a local fake of Google's token endpoint and Wallet REST API. The updates go
// the real way: a ready or ring again rings the `wallet` channel, whose result the ring's
// `ticket.rung` event shows; a close's wallet job (run here by hand) closes the pass. The save
// link's JWT is verified with the test key's public half by node:crypto, not by the code under test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WALLET_ADD_POLICY } from '../../src/http/routes/live-limits.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeGoogleWallet, verifyRs256 } from '../helpers/google-wallet.ts';
import { findTicketByLink } from '../../src/actions/customer-link.ts';
import { getBranch } from '../../src/store/tenancy.ts';
import { takeGoogleWalletNotification } from '../../src/store/google-wallet-objects.ts';
import type { WalletChange } from '../../src/channels/wallet/issuer.ts';
import type { GoogleWalletIssuer } from '../../src/channels/wallet/google/google-issuer.ts';
import { makeWalletCerts } from '../helpers/wallet-certs.ts';
import { FakeApns } from '../helpers/fake-apns.ts';
import { WalletDevice } from '../helpers/wallet-device.ts';

const PHONE = '+14155550123';
const HOUR = 3_600_000;
const clock = new FakeClock();
let google: FakeGoogleWallet;
let t: TestApp;
let plain: TestApp;
let issuer: GoogleWalletIssuer;

before(async () => {
  google = await new FakeGoogleWallet().start();
  t = await startTestApp({ clock, env: google.env() });
  plain = await startTestApp();
  issuer = t.app.ringChannels.googleWallet!;
});
after(async () => {
  await t?.close();
  await plain?.close();
  await google?.close();
});

async function newTicket(app: TestApp, key: string): Promise<{ id: string; token: string; number: string }> {
  const res = await app.request('POST', '/v1/tickets', { key, body: { customer_phone: PHONE } });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.id, token: new URL(res.body.url).pathname.split('/').at(-1)!, number: res.body.display_number };
}

/** The customer's tap on "Add to Google Wallet": the JWT of the save link it redirects to. */
async function tapSave(token: string): Promise<{ jwt: string; payload: any }> {
  const res = await fetch(`${t.url}/t/${token}/wallet/google`, { redirect: 'manual' });
  assert.equal(res.status, 303, await res.text());
  const location = res.headers.get('location')!;
  assert.ok(location.startsWith('https://pay.google.com/gp/v/save/'), location);
  const jwt = location.slice('https://pay.google.com/gp/v/save/'.length);
  return { jwt, payload: verifyRs256(jwt, google.keys.publicKey).payload };
}

/** A change as the ring's outbox job or the close job hands it to the issuer. */
async function change(token: string, reason: WalletChange['reason'], ringId: string | null): Promise<WalletChange> {
  const ticket = (await findTicketByLink(t.app.services, token))!;
  const branch = (await getBranch(t.app.services.db, ticket.branchId))!;
  return { ticket, branch: { name: branch.name, settings: branch.settings }, reason, ringId, livemode: ticket.mode === 'live' };
}

const signal = () => new AbortController().signal;
const ready = (id: string, key = t.tenant.liveKey) => t.request('POST', `/v1/tickets/${id}/ready`, { key });
const ringAgain = (id: string, key = t.tenant.liveKey) => t.request('POST', `/v1/tickets/${id}/ring`, { key });

/** The ticket's rings as its `ticket.rung` events tell them, oldest first. */
async function rings(ticketId: string, key = t.tenant.liveKey): Promise<any[]> {
  const events = await t.request('GET', '/v1/events?type=ticket.rung&limit=100', { key });
  assert.equal(events.status, 200, events.text);
  return events.body.data
    .filter((e: any) => e.data.object.id === ticketId)
    .map((e: any) => e.data.ring)
    .sort((a: any, b: any) => a.seq - b.seq);
}

/** What the `wallet` channel did in a ring. */
const walletOf = (ring: any): any => ring.channels.find((c: any) => c.channel === 'wallet');

/** Runs the due jobs (a close's wallet job among them) until none is left; bounded, so it cannot spin. */
async function drainJobs(app = t): Promise<void> {
  for (let n = 0; n < 50; n++) if ((await app.app.runner.runOnce()) === 0) return;
  assert.fail('jobs kept coming');
}

test('the save link: a JWT signed with the service account key, the pass inserted at Google first, nothing personal', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const { jwt, payload } = await tapSave(ticket.token);
  assert.equal(payload.iss, FakeGoogleWallet.EMAIL);
  assert.equal(payload.aud, 'google');
  assert.equal(payload.typ, 'savetowallet');
  assert.deepEqual(payload.origins, ['http://localhost:3000']);
  const object = payload.payload.genericObjects[0];
  assert.match(object.id, new RegExp(`^${FakeGoogleWallet.ISSUER}\\.[A-Za-z0-9_-]{20,}$`));
  assert.equal(object.header.defaultValue.value, ticket.number);
  assert.equal(object.cardTitle.defaultValue.value, (await getBranch(t.app.services.db, t.tenant.branchId))!.name);
  assert.equal(object.barcode.type, 'QR_CODE');
  assert.equal(object.barcode.value, `http://localhost:3000/t/${ticket.token}`);
  assert.equal(object.state, 'ACTIVE');
  assert.equal(object.subheader.defaultValue.value, 'We’re preparing your order');
  assert.deepEqual(object.textModulesData, [], 'nothing to do yet; not the page’s "keep this page open"');
  const decoded = Buffer.from(jwt.split('.')[1]!, 'base64url').toString();
  assert.ok(!decoded.includes('4155550123'), 'no phone number on the pass');
  assert.ok(!object.id.includes(ticket.id) && !object.id.includes(ticket.token), 'the object id names neither the ticket nor its link');
  // Inserted before the customer saves, so that a ring updates it whenever the save completes.
  assert.deepEqual(google.objects.get(object.id)?.header, object.header);
  // A second tap: the same pass.
  assert.equal((await tapSave(ticket.token)).payload.payload.genericObjects[0].id, object.id);
});

test('ready: the pass says so and one message notifies, with the ring’s id; the ready does not claim the wallet reached anyone', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  const answer = await ready(ticket.id);
  assert.equal(answer.status, 200, answer.text);
  assert.notEqual(answer.body.channel_used, 'wallet', 'Google sends no receipt: the pass is never "reached"');
  const [ring, ...more] = await rings(ticket.id);
  assert.deepEqual(more, []);
  assert.deepEqual(walletOf(ring), {
    channel: 'wallet',
    delivered: false,
    detail: 'google: notified (1 of 3 in 24 h); Google sends no delivery receipt',
  });
  const pass = google.objects.get(objectId);
  assert.equal(pass.subheader.defaultValue.value, 'Your order is ready!');
  assert.deepEqual(pass.textModulesData[0], { id: 'status', header: 'Your order is ready!', body: 'Please come to the counter.' });
  assert.equal(pass.messages.length, 1);
  assert.equal(pass.messages[0].messageType, 'TEXT_AND_NOTIFY');
  assert.equal(pass.messages[0].id, ring.id);
  assert.match(pass.messages[0].header, new RegExp(`^${ticket.number} is ready$`));
  // The ring's outbox job asking about the same ring again: the recorded outcome, no second message.
  assert.deepEqual(await issuer.update(await change(ticket.token, 'ready', ring.id), signal()), {
    delivered: false,
    detail: 'notified (1 of 3 in 24 h); Google sends no delivery receipt',
  });
  assert.equal(google.objects.get(objectId).messages.length, 1);
});

test('ring again adds a message; the fourth ring within 24 hours updates the pass without notifying; a day later it notifies again', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  assert.equal((await ready(ticket.id)).status, 200);
  for (let n = 0; n < 3; n++) {
    clock.advance(HOUR);
    const again = await ringAgain(ticket.id);
    assert.equal(again.status, 200, again.text);
    assert.notEqual(again.body.channel_used, 'wallet');
  }
  const rung = await rings(ticket.id);
  assert.deepEqual(
    google.objects.get(objectId).messages.map((m: any) => [m.messageType, m.id]),
    rung.map((r, i) => [i < 3 ? 'TEXT_AND_NOTIFY' : 'TEXT', r.id]),
  );
  assert.deepEqual(
    rung.map((r) => r.reason),
    ['ready', 'manual', 'manual', 'manual'],
  );
  assert.equal(
    walletOf(rung[3]).detail,
    'google: updated without notifying: Google allows 3 notifications per pass in 24 h; Google sends no delivery receipt',
  );
  clock.advance(21 * HOUR); // 24 h after the first notification
  assert.equal((await ringAgain(ticket.id)).status, 200);
  assert.equal(google.objects.get(objectId).messages.at(-1).messageType, 'TEXT_AND_NOTIFY');
  assert.equal(google.objects.get(objectId).messages.length, 5);
});

test("Google's own refusal of a notification (429): the message is added without it", async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  google.refuseNotification = true;
  await ready(ticket.id);
  assert.match(walletOf((await rings(ticket.id))[0]).detail, /^google: updated without notifying/);
  assert.deepEqual(
    google.objects.get(objectId).messages.map((m: any) => m.messageType),
    ['TEXT'],
  );
});

test('collect: the close job makes the pass COMPLETED without a message, and the ticket forgets it', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  await ready(ticket.id);
  assert.equal(google.objects.get(objectId).messages.length, 1);
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/collect`, { key: t.tenant.liveKey })).status, 200);
  assert.equal(google.objects.get(objectId).state, 'ACTIVE', 'the close reaches Google through its job');
  await drainJobs();
  const pass = google.objects.get(objectId);
  assert.equal(pass.state, 'COMPLETED');
  assert.equal(pass.messages.length, 1, 'the close adds no message');
  assert.equal(google.requestsFor(objectId).at(-1)!.method, 'PATCH');
  assert.equal(await issuer.update(await change(ticket.token, 'collected', null), signal()), null, 'forgotten');
  // And the link no longer makes a pass.
  const res = await t.request('GET', `/t/${ticket.token}/wallet/google`, { key: null });
  assert.equal(res.status, 404);
  assert.equal(res.body.code, 'not-found');
});

test('cancelled and expired passes say so: INACTIVE and EXPIRED, without a message', async () => {
  const cancelled = await newTicket(t, t.tenant.liveKey);
  const cancelledId = (await tapSave(cancelled.token)).payload.payload.genericObjects[0].id;
  await ready(cancelled.id);
  assert.equal((await t.request('POST', `/v1/tickets/${cancelled.id}/cancel`, { key: t.tenant.liveKey })).status, 200);
  await drainJobs();
  assert.equal(google.objects.get(cancelledId).state, 'INACTIVE');
  assert.match(google.objects.get(cancelledId).subheader.defaultValue.value, /cancelled/);

  // Expired by the expiry job, after the branch's expiry (12 h by default).
  const expired = await newTicket(t, t.tenant.liveKey);
  const expiredId = (await tapSave(expired.token)).payload.payload.genericObjects[0].id;
  await ready(expired.id);
  clock.advance(12 * HOUR + 1);
  assert.ok((await t.app.maintenance.expireDue()) >= 1);
  await drainJobs();
  assert.equal(google.objects.get(expiredId).state, 'EXPIRED');
  assert.match(google.objects.get(expiredId).subheader.defaultValue.value, /expired/);
  for (const id of [cancelledId, expiredId])
    assert.equal(google.objects.get(id).messages.length, 1, "the ready's message, and none for the close");
});

test('a pass Google no longer has (404) is forgotten: the next ring does not try it', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  google.objects.delete(objectId);
  await ready(ticket.id);
  assert.equal(walletOf((await rings(ticket.id))[0]).detail, 'google: gone (404): Google has no such pass; forgotten');
  const before = google.requests.length;
  clock.advance(HOUR);
  assert.equal((await ringAgain(ticket.id)).status, 200);
  assert.deepEqual(walletOf((await rings(ticket.id))[1]), { channel: 'wallet', delivered: false, detail: 'no pass' });
  assert.equal(google.requests.length, before);
});

test('test mode: the save link is signed, but nothing is sent to Google, and updates and closes are simulated', async () => {
  const before = google.requests.length;
  const ticket = await newTicket(t, t.tenant.testKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  const answer = await ready(ticket.id, t.tenant.testKey);
  assert.notEqual(answer.body.channel_used, 'wallet');
  assert.deepEqual(walletOf((await rings(ticket.id, t.tenant.testKey))[0]), {
    channel: 'wallet',
    delivered: false,
    detail: 'google: simulated (test mode): notified (1 of 3 in 24 h); Google sends no delivery receipt',
  });
  await t.request('POST', `/v1/tickets/${ticket.id}/cancel`, { key: t.tenant.testKey });
  await drainJobs();
  assert.equal(await issuer.update(await change(ticket.token, 'cancelled', null), signal()), null, 'the close forgot the pass');
  assert.equal(google.requests.length, before, 'no call to the Wallet API');
  assert.equal(google.objects.has(objectId), false);
});

test('a ticket without a pass: no one is contacted, and its close schedules no wallet job', async () => {
  const before = google.requests.length;
  const ticket = await newTicket(t, t.tenant.liveKey);
  await ready(ticket.id);
  assert.deepEqual(walletOf((await rings(ticket.id))[0]), { channel: 'wallet', delivered: false, detail: 'no pass' });
  await t.request('POST', `/v1/tickets/${ticket.id}/collect`, { key: t.tenant.liveKey });
  const closeJobs = await t.app.services.db.query<{ key: string }>('SELECT key FROM jobs WHERE key LIKE $1', [
    `wallet-close:${ticket.id}:%`,
  ]);
  assert.deepEqual(closeJobs, [], 'the close of a ticket in no wallet costs no job');
  await drainJobs();
  assert.equal(google.requests.length, before);
});

test('one access token serves many calls until near its end; then a new one is fetched', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  await tapSave(ticket.token);
  const issued = google.tokensIssued;
  await ready(ticket.id);
  clock.advance(10_000);
  assert.equal((await ringAgain(ticket.id)).status, 200);
  assert.equal(google.tokensIssued, issued);
  clock.advance(2 * HOUR);
  assert.equal((await ringAgain(ticket.id)).status, 200);
  assert.equal(google.tokensIssued, issued + 1);
  assert.equal((await rings(ticket.id)).length, 3);
});

test('unknown or malformed links, and a server without Google Wallet: 404 problems', async () => {
  for (const path of ['/t/not-a-token/wallet/google', `/t/${'a'.repeat(26)}/wallet/google`]) {
    const res = await t.request('GET', path, { key: null });
    assert.equal(res.status, 404, path);
    assert.match(res.headers.get('content-type')!, /^application\/problem\+json/);
  }
  const ticket = await newTicket(plain, plain.tenant.liveKey);
  const res = await plain.request('GET', `/t/${ticket.token}/wallet/google`, { key: null });
  assert.equal(res.status, 404);
  assert.equal(res.body.detail, 'Google Wallet is not set up on this server.');
  assert.equal(plain.app.ringChannels.googleWallet, null);
});

test('two rings racing for the third notification of a pass: exactly one gets it', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  const { db } = t.app.services;
  const now = clock.now();
  assert.equal(await takeGoogleWalletNotification(db, objectId, now), true);
  assert.equal(await takeGoogleWalletNotification(db, objectId, now), true);
  const racing = await Promise.all(Array.from({ length: 6 }, () => takeGoogleWalletNotification(db, objectId, now)));
  assert.equal(racing.filter(Boolean).length, 1, JSON.stringify(racing));
});

test('Google unreachable at the tap: the redirect still goes out within the 3 s budget, the JWT carrying the whole pass', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  google.hang = true;
  try {
    const started = performance.now();
    const { payload } = await tapSave(ticket.token);
    const waited = performance.now() - started;
    assert.ok(waited >= 2900 && waited < 6000, `answered after ${Math.round(waited)} ms`);
    assert.equal(payload.payload.genericObjects[0].header.defaultValue.value, ticket.number);
  } finally {
    google.hang = false;
  }
});

test('a refused token (a revoked key): the ring says so, and nothing claims the customer was reached', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  await tapSave(ticket.token);
  clock.advance(2 * HOUR); // past the cached token's end
  google.refuseTokens = true;
  try {
    const answer = await ready(ticket.id);
    assert.notEqual(answer.body.channel_used, 'wallet');
    assert.deepEqual(walletOf((await rings(ticket.id))[0]), {
      channel: 'wallet',
      delivered: false,
      detail: 'google: error: Google token endpoint answered 400',
    });
  } finally {
    google.refuseTokens = false;
  }
});

test('a ticket in both wallets: the iPhone confirms the ring, the Google pass gets its message, and the close reaches both', async () => {
  const certs = makeWalletCerts();
  let apns: FakeApns | undefined;
  let both: TestApp | undefined;
  try {
    apns = await new FakeApns({ ...certs.server, ca: certs.ca }).start();
    both = await startTestApp({ clock, env: { ...certs.env(apns.url), ...google.env(), RING_DEADLINE_MS: '4000' } });
    const app = both;
    const res = await app.request('POST', '/v1/tickets', { key: app.tenant.liveKey, body: { queue: 'A' } });
    assert.equal(res.status, 201, res.text);
    const token = new URL(res.body.url).pathname.split('/').at(-1)!;
    // The customer adds the pass to Apple Wallet on an iPhone that is online...
    const pkpass = await fetch(`${app.url}/t/${token}/wallet/apple.pkpass`);
    assert.equal(pkpass.status, 200);
    const device = new WalletDevice(app.url);
    const { serialNumber: serial } = device.add(new Uint8Array(await pkpass.arrayBuffer()), pkpass.headers.get('last-modified'));
    assert.equal((await device.register(serial)).status, 201);
    apns.onPush((p) => void (p.token === device.pushToken ? device.pushed().catch(() => {}) : undefined));
    // ...and to Google Wallet.
    const saved = await fetch(`${app.url}/t/${token}/wallet/google`, { redirect: 'manual' });
    assert.equal(saved.status, 303);
    const jwt = saved.headers.get('location')!.split('/').at(-1)!;
    const objectId = verifyRs256(jwt, google.keys.publicKey).payload.payload.genericObjects[0].id;

    const ready = await app.request('POST', `/v1/tickets/${res.body.id}/ready`, { key: app.tenant.liveKey });
    assert.equal(ready.status, 200, ready.text);
    assert.deepEqual([ready.body.rang, ready.body.channel_used], [true, 'wallet'], 'the iPhone confirmed it');
    const events = await app.request('GET', '/v1/events?type=ticket.rung&limit=100', { key: app.tenant.liveKey });
    const ring = events.body.data.find((e: any) => e.data.object.id === res.body.id).data.ring;
    assert.deepEqual(walletOf(ring), {
      channel: 'wallet',
      delivered: true,
      detail: 'apple: the device fetched the updated pass; google: notified (1 of 3 in 24 h); Google sends no delivery receipt',
    });
    // The fetch is the receipt; the signed pass reaches the phone a signing later.
    await eventually(() => device.status(serial) === 'Your order is ready!', 'the iPhone has the ready pass');
    assert.deepEqual(
      google.objects.get(objectId).messages.map((m: any) => [m.messageType, m.id]),
      [['TEXT_AND_NOTIFY', ring.id]],
    );
    assert.equal(apns.pushesTo(device.pushToken).length, 1);

    assert.equal((await app.request('POST', `/v1/tickets/${res.body.id}/collect`, { key: app.tenant.liveKey })).status, 200);
    await drainJobs(app);
    assert.equal(apns.pushesTo(device.pushToken).length, 2, 'the iPhone told of the close');
    await eventually(() => device.status(serial) === 'Picked up. Enjoy!', 'the iPhone fetched the closed pass');
    assert.equal(google.objects.get(objectId).state, 'COMPLETED');
    assert.equal(google.objects.get(objectId).messages.length, 1);
  } finally {
    await both?.close();
    await apns?.close();
    certs.drop();
  }
});

test('the save link inserts the object at Google once, however often it is tapped, and is rate-limited', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  const inserts = () => google.requestsFor(objectId).filter((r) => r.method === 'POST' && r.path.endsWith('/genericObject')).length;
  assert.equal(inserts(), 1);
  for (let i = 1; i < WALLET_ADD_POLICY.capacity; i++) await tapSave(ticket.token);
  assert.equal(inserts(), 1, 'later taps sign a new link, but Google already has the object');
  const refused = await fetch(`${t.url}/t/${ticket.token}/wallet/google`, { redirect: 'manual' });
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  // The customer page itself is not held back by the taps.
  assert.equal((await fetch(`${t.url}/t/${ticket.token}`)).status, 200);
  clock.advance(60_000);
  await tapSave(ticket.token);
  assert.equal(inserts(), 1);
});
