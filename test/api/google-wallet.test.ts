// Google Wallet (issue 28, item 4): the save link a customer taps, and the pass's updates on rings
// and closes, against a local fake of Google's token endpoint and Wallet REST API. The save link's
// JWT is verified with the test key's public half by node:crypto, not by the code under test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { FakeGoogleWallet, verifyRs256 } from '../helpers/google-wallet.ts';
import { findTicketByLink } from '../../src/actions/customer-link.ts';
import { getBranch } from '../../src/store/tenancy.ts';
import { newId } from '../../src/domain/ids.ts';
import { takeGoogleWalletNotification } from '../../src/store/google-wallet-objects.ts';
import type { WalletChange } from '../../src/channels/wallet/issuer.ts';
import type { GoogleWalletIssuer } from '../../src/channels/wallet/google/google-issuer.ts';

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
  issuer = t.app.googleWallet!;
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

async function change(token: string, reason: WalletChange['reason'], ringId: string | null = newId('ring')): Promise<WalletChange> {
  const ticket = (await findTicketByLink(t.app.services, token))!;
  const branch = (await getBranch(t.app.services.db, ticket.branchId))!;
  return { ticket, branch: { name: branch.name, settings: branch.settings }, reason, ringId, livemode: ticket.mode === 'live' };
}

const signal = () => new AbortController().signal;
const ready = (id: string, key = t.tenant.liveKey) => t.request('POST', `/v1/tickets/${id}/ready`, { key });

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

test('ready: the status changes and a message notifies; the same ring asked twice adds one message', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  assert.equal((await ready(ticket.id)).status, 200);
  const rung = await change(ticket.token, 'ready');
  const outcome = await issuer.update(rung, signal());
  assert.deepEqual(outcome, {
    delivered: false,
    detail: 'notified (1 of 3 in 24 h); Google sends no delivery receipt',
  });
  const pass = google.objects.get(objectId);
  assert.equal(pass.subheader.defaultValue.value, 'Your order is ready!');
  assert.deepEqual(pass.textModulesData[0], { id: 'status', header: 'Your order is ready!', body: 'Please come to the counter.' });
  assert.equal(pass.messages.length, 1);
  assert.equal(pass.messages[0].messageType, 'TEXT_AND_NOTIFY');
  assert.equal(pass.messages[0].id, rung.ringId);
  assert.match(pass.messages[0].header, /^A-\d+ is ready$/);
  // The outbox job asking about the same ring again: the recorded outcome, no second message.
  assert.deepEqual(await issuer.update(rung, signal()), outcome);
  assert.equal(google.objects.get(objectId).messages.length, 1);
});

test('a fourth ring within 24 hours updates the pass without notifying; a day later it notifies again', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  await ready(ticket.id);
  const details: string[] = [];
  for (const reason of ['ready', 'manual', 'reminder', 'reminder'] as const) {
    details.push((await issuer.update(await change(ticket.token, reason), signal()))!.detail);
    clock.advance(HOUR);
  }
  assert.deepEqual(
    google.objects.get(objectId).messages.map((m: any) => m.messageType),
    ['TEXT_AND_NOTIFY', 'TEXT_AND_NOTIFY', 'TEXT_AND_NOTIFY', 'TEXT'],
  );
  assert.equal(details[3], 'updated without notifying: Google allows 3 notifications per pass in 24 h; Google sends no delivery receipt');
  clock.advance(21 * HOUR); // 24 h after the first notification
  await issuer.update(await change(ticket.token, 'reminder'), signal());
  assert.equal(google.objects.get(objectId).messages.at(-1).messageType, 'TEXT_AND_NOTIFY');
});

test("Google's own refusal of a notification (429): the message is added without it", async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  await ready(ticket.id);
  google.refuseNotification = true;
  const outcome = await issuer.update(await change(ticket.token, 'ready'), signal());
  assert.match(outcome!.detail, /^updated without notifying/);
  assert.deepEqual(
    google.objects.get(objectId).messages.map((m: any) => m.messageType),
    ['TEXT'],
  );
});

test('close: the pass becomes COMPLETED without a message, and the ticket forgets it', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  await ready(ticket.id);
  await issuer.update(await change(ticket.token, 'ready'), signal());
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/collect`, { key: t.tenant.liveKey })).status, 200);
  const outcome = await issuer.update(await change(ticket.token, 'collected', null), signal());
  assert.deepEqual(outcome, { delivered: false, detail: 'pass COMPLETED' });
  const pass = google.objects.get(objectId);
  assert.equal(pass.state, 'COMPLETED');
  assert.equal(pass.messages.length, 1, 'the close adds no message');
  assert.equal(google.requestsFor(objectId).at(-1)!.method, 'PATCH');
  assert.equal(await issuer.update(await change(ticket.token, 'collected', null), signal()), null);
  // And the link no longer makes a pass.
  const res = await t.request('GET', `/t/${ticket.token}/wallet/google`, { key: null });
  assert.equal(res.status, 404);
  assert.equal(res.body.code, 'not-found');
});

test('cancelled and expired passes say so: INACTIVE and EXPIRED', async () => {
  for (const [op, reason, state] of [
    ['cancel', 'cancelled', 'INACTIVE'],
    ['expire', 'expired', 'EXPIRED'],
  ] as const) {
    const ticket = await newTicket(t, t.tenant.liveKey);
    const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
    if (op === 'cancel') await t.request('POST', `/v1/tickets/${ticket.id}/cancel`, { key: t.tenant.liveKey });
    else
      await t.app.services.db.write((tx) =>
        tx.run("UPDATE tickets SET status = 'expired', closed_at = $2 WHERE id = $1", [ticket.id, clock.now()]),
      );
    await issuer.update(await change(ticket.token, reason, null), signal());
    assert.equal(google.objects.get(objectId).state, state);
    assert.match(google.objects.get(objectId).subheader.defaultValue.value, op === 'cancel' ? /cancelled/ : /expired/);
  }
});

test('a pass Google no longer has (404) is forgotten', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  google.objects.delete(objectId);
  await ready(ticket.id);
  const outcome = await issuer.update(await change(ticket.token, 'ready'), signal());
  assert.deepEqual(outcome, { delivered: false, detail: 'gone (404): Google has no such pass; forgotten' });
  assert.equal(await issuer.update(await change(ticket.token, 'manual'), signal()), null);
});

test('test mode: the save link is signed, but nothing is sent to Google, and updates are simulated', async () => {
  const before = google.requests.length;
  const ticket = await newTicket(t, t.tenant.testKey);
  const objectId = (await tapSave(ticket.token)).payload.payload.genericObjects[0].id;
  await ready(ticket.id, t.tenant.testKey);
  const rung = await issuer.update(await change(ticket.token, 'ready'), signal());
  assert.deepEqual(rung, {
    delivered: false,
    detail: 'simulated (test mode): notified (1 of 3 in 24 h); Google sends no delivery receipt',
  });
  await t.request('POST', `/v1/tickets/${ticket.id}/cancel`, { key: t.tenant.testKey });
  const closed = await issuer.update(await change(ticket.token, 'cancelled', null), signal());
  assert.deepEqual(closed, { delivered: false, detail: 'simulated (test mode): pass INACTIVE' });
  assert.equal(google.requests.length, before, 'no call to the Wallet API');
  assert.equal(google.objects.has(objectId), false);
});

test('a ticket without a pass: no one is contacted', async () => {
  const before = google.requests.length;
  const ticket = await newTicket(t, t.tenant.liveKey);
  await ready(ticket.id);
  assert.equal(await issuer.update(await change(ticket.token, 'ready'), signal()), null);
  assert.equal(google.requests.length, before);
});

test('one access token serves many calls until near its end; then a new one is fetched', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  await tapSave(ticket.token);
  await ready(ticket.id);
  const issued = google.tokensIssued;
  await issuer.update(await change(ticket.token, 'ready'), signal());
  await issuer.update(await change(ticket.token, 'manual'), signal());
  assert.equal(google.tokensIssued, issued);
  clock.advance(2 * HOUR);
  await issuer.update(await change(ticket.token, 'reminder'), signal());
  assert.equal(google.tokensIssued, issued + 1);
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
  assert.equal(plain.app.googleWallet, null);
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

test('a refused token (a revoked key): the update says so, and nothing claims the customer was reached', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  await tapSave(ticket.token);
  await ready(ticket.id);
  clock.advance(2 * HOUR); // past the cached token's end
  google.refuseTokens = true;
  try {
    const outcome = await issuer.update(await change(ticket.token, 'ready'), signal());
    assert.deepEqual(outcome, { delivered: false, detail: 'error: Google token endpoint answered 400' });
  } finally {
    google.refuseTokens = false;
  }
});
