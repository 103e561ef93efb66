// The ticket lifecycle over HTTP, as a POS integrator sees it (PRODUCT.md §2).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import QRCode from 'qrcode';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { createTicket } from '../helpers/tickets.ts';

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('create answers 201 with the full ticket object', async () => {
  const res = await t.request('POST', '/v1/tickets', { body: { queue: 'A', external_ref: 'order-17' } });
  assert.equal(res.status, 201);
  const tk = res.body;
  assert.match(tk.id, /^tk_[0-9a-z]{26}$/);
  assert.match(tk.display_number, /^A-\d+$/);
  assert.match(tk.url, /^http:\/\/localhost:3000\/t\/[A-Z2-7]{32}$/);
  assert.ok(!tk.url.includes(tk.id.slice(3)), 'the customer link is not the id');
  assert.equal(tk.object, 'ticket');
  assert.equal(tk.status, 'created');
  assert.equal(tk.queue, 'A');
  assert.equal(tk.external_ref, 'order-17');
  assert.deepEqual(tk.metadata, {});
  assert.equal(tk.livemode, false);
  assert.equal(tk.branch, t.tenant.branchId);
  assert.match(tk.created_at, ISO_MS);
  assert.equal(tk.created_at, new Date(clock.now()).toISOString());
  for (const k of ['ready_at', 'collected_at', 'cancelled_at', 'expired_at']) assert.equal(tk[k], null, k);
  assert.deepEqual(
    { viewed_at: tk.customer.viewed_at, notifications: tk.customer.notifications, acknowledged_at: tk.customer.acknowledged_at },
    { viewed_at: null, notifications: 'none', acknowledged_at: null },
  );
  assert.equal(tk.rings, 0);
  assert.equal('customer_phone' in tk, false, 'the phone number never leaves through the API');

  const got = await t.request('GET', `/v1/tickets/${tk.id}`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, tk);
});

test('a live key creates live tickets', async () => {
  const tk = await createTicket(t, { key: t.tenant.liveKey });
  assert.equal(tk.livemode, true);
});

test('queue defaults to the branch default; an unknown queue is 422', async () => {
  const tk = await createTicket(t);
  assert.equal(tk.queue, 'A');
  const bad = await t.request('POST', '/v1/tickets', { body: { queue: 'Nope' } });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.code, 'validation-failed');
  assert.deepEqual(
    bad.body.errors.map((e: { pointer: string }) => e.pointer),
    ['/queue'],
  );
});

test('metadata is stored and returned', async () => {
  const metadata = { table: '12', note: 'no onions' };
  const tk = await createTicket(t, { body: { metadata } });
  assert.deepEqual(tk.metadata, metadata);
  assert.deepEqual((await t.request('GET', `/v1/tickets/${tk.id}`)).body.metadata, metadata);
});

test('list: filters, newest first, cursor pagination across pages', async () => {
  const tenant = await t.newTenant();
  const key = tenant.testKey;
  await t.request('POST', '/v1/queues', { key, body: { name: 'B' } });
  const start = clock.now();
  const made: any[] = [];
  for (let i = 0; i < 7; i++) {
    clock.advance(1000);
    made.push(await createTicket(t, { key, body: { queue: i % 2 === 0 ? 'A' : 'B', external_ref: `ref-${i}` } }));
  }
  const list = async (qs: string) => {
    const res = await t.request('GET', `/v1/tickets${qs}`, { key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.object, 'list');
    return res.body as { data: any[]; has_more: boolean };
  };
  const ids = (xs: any[]) => xs.map((x) => x.id);
  const newestFirst = ids(made).reverse();

  assert.deepEqual(ids((await list('')).data), newestFirst);
  assert.deepEqual(ids((await list('?queue=B')).data), ids(made.filter((m) => m.queue === 'B')).reverse());
  assert.deepEqual(ids((await list('?external_ref=ref-3')).data), [made[3].id]);

  await t.request('POST', `/v1/tickets/${made[0].id}/ready`, { key });
  await t.request('POST', `/v1/tickets/${made[1].id}/collect`, { key });
  await t.request('POST', `/v1/tickets/${made[2].id}/cancel`, { key });
  assert.deepEqual(ids((await list('?status=ready')).data), [made[0].id]);
  assert.deepEqual(ids((await list('?status=collected,cancelled')).data), [made[2].id, made[1].id]);
  assert.deepEqual(ids((await list('?status=created')).data), ids(made.slice(3)).reverse());

  const at = (i: number) => new Date(start + (i + 1) * 1000).toISOString();
  assert.deepEqual(ids((await list(`?created_after=${at(4)}`)).data), [made[6].id, made[5].id]);
  assert.deepEqual(ids((await list(`?created_before=${at(2)}`)).data), [made[1].id, made[0].id]);
  assert.deepEqual(ids((await list(`?created_after=${at(1)}&created_before=${at(4)}`)).data), [made[3].id, made[2].id]);

  // Three pages of 3, 3 and 1: every ticket once, in order, and has_more only while more remain.
  const seen: string[] = [];
  let cursor = '';
  const pages: boolean[] = [];
  for (;;) {
    const page = await list(`?limit=3${cursor}`);
    seen.push(...ids(page.data));
    pages.push(page.has_more);
    if (!page.has_more) break;
    cursor = `&starting_after=${page.data.at(-1).id}`;
  }
  assert.deepEqual(pages, [true, true, false]);
  assert.deepEqual(seen, newestFirst);
  const exact = await list(`?limit=1&starting_after=${made[1].id}`);
  assert.deepEqual(ids(exact.data), [made[0].id]);
  assert.equal(exact.has_more, false);
});

test('ready answers rang:false, channel none, no call-out, and the ready ticket', async () => {
  const tk = await createTicket(t);
  const res = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), ['call_out_loud', 'channel_used', 'rang', 'ticket']);
  assert.equal(res.body.rang, false);
  assert.equal(res.body.channel_used, 'none');
  assert.equal(res.body.call_out_loud, false);
  assert.equal(res.body.ticket.id, tk.id);
  assert.equal(res.body.ticket.status, 'ready');
  assert.equal(res.body.ticket.ready_at, new Date(clock.now()).toISOString());
  assert.equal(res.body.ticket.rings, 1);
});

test('ring: only a ready ticket, at most once per 10 s', async () => {
  const tk = await createTicket(t);
  const early = await t.request('POST', `/v1/tickets/${tk.id}/ring`);
  assert.equal(early.status, 409);
  assert.equal(early.body.ticket_status, 'created');

  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  clock.advance(4_000);
  const tooSoon = await t.request('POST', `/v1/tickets/${tk.id}/ring`);
  assert.equal(tooSoon.status, 429);
  assert.equal(tooSoon.body.code, 'rate-limited');
  assert.equal(tooSoon.headers.get('retry-after'), '6');
  assert.equal(tooSoon.body.retry_after, 6);

  // The same with an Idempotency-Key: the 429 tells the client when to retry (and is not stored
  // under the key: test/api/idempotency.test.ts).
  const keyed = await t.request('POST', `/v1/tickets/${tk.id}/ring`, { headers: { 'idempotency-key': `ring-${tk.id}` } });
  assert.equal(keyed.status, 429);
  assert.equal(keyed.headers.get('retry-after'), '6');

  clock.advance(6_000);
  const again = await t.request('POST', `/v1/tickets/${tk.id}/ring`);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.rang, false);
  assert.equal(again.body.ticket.rings, 2);
  assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/ring`)).status, 429);
  clock.advance(10_000);
  assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/ring`)).body.ticket.rings, 3);
});

test('collect and cancel (with a reason) close the ticket', async () => {
  const a = await createTicket(t);
  await t.request('POST', `/v1/tickets/${a.id}/ready`);
  const collected = await t.request('POST', `/v1/tickets/${a.id}/collect`);
  assert.equal(collected.status, 200);
  assert.equal(collected.body.status, 'collected');
  assert.equal(collected.body.collected_at, new Date(clock.now()).toISOString());

  const b = await createTicket(t);
  const cancelled = await t.request('POST', `/v1/tickets/${b.id}/cancel`, { body: { reason: 'customer left' } });
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.body.status, 'cancelled');
  assert.equal(cancelled.body.cancellation_reason, 'customer left');
  assert.match(cancelled.body.cancelled_at, ISO_MS);

  const c = await createTicket(t);
  const plain = await t.request('POST', `/v1/tickets/${c.id}/cancel`);
  assert.equal(plain.status, 200);
  assert.equal(plain.body.cancellation_reason, null);
});

test('QR codes: SVG and PNG of the customer link, small enough to print', async () => {
  const tk = await createTicket(t);
  const svg = await fetch(`${t.url}/v1/tickets/${tk.id}/qr.svg`, { headers: { authorization: `Bearer ${t.tenant.testKey}` } });
  assert.equal(svg.status, 200);
  assert.match(svg.headers.get('content-type') ?? '', /^image\/svg\+xml/);
  assert.match(await svg.text(), /^<svg[\s\S]*<\/svg>\s*$/);
  const png = await fetch(`${t.url}/v1/tickets/${tk.id}/qr.png`, { headers: { authorization: `Bearer ${t.tenant.testKey}` } });
  assert.equal(png.status, 200);
  assert.equal(png.headers.get('content-type'), 'image/png');
  const bytes = Buffer.from(await png.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  assert.ok(QRCode.create(tk.url, { errorCorrectionLevel: 'M' }).version <= 4, `version for ${tk.url}`);
  // A typical production base URL stays small too.
  const prod = tk.url.replace('http://localhost:3000', 'https://pickup.example.com');
  assert.ok(QRCode.create(prod, { errorCorrectionLevel: 'M' }).version <= 4, `version for ${prod}`);
});

test('the customer phone is erased from the store when the ticket closes', async () => {
  const stored = async (id: string) =>
    (await t.app.services.db.query<{ customer_phone: string | null }>('SELECT customer_phone FROM tickets WHERE id = $1', [id]))[0]!
      .customer_phone;
  const a = await createTicket(t, { body: { customer_phone: '+33612345678' } });
  const b = await createTicket(t, { body: { customer_phone: '+14155550123' } });
  assert.equal(await stored(a.id), '+33612345678');
  await t.request('POST', `/v1/tickets/${a.id}/ready`);
  assert.equal(await stored(a.id), '+33612345678', 'kept while it can still be used');
  await t.request('POST', `/v1/tickets/${a.id}/collect`);
  await t.request('POST', `/v1/tickets/${b.id}/cancel`);
  assert.equal(await stored(a.id), null);
  assert.equal(await stored(b.id), null);
});

test('every lifecycle step writes its event', async () => {
  const tenant = await t.newTenant();
  const key = tenant.testKey;
  const a = await createTicket(t, { key });
  await t.request('POST', `/v1/tickets/${a.id}/ready`, { key });
  clock.advance(10_000);
  await t.request('POST', `/v1/tickets/${a.id}/ring`, { key });
  await t.request('POST', `/v1/tickets/${a.id}/collect`, { key });
  const b = await createTicket(t, { key });
  await t.request('POST', `/v1/tickets/${b.id}/cancel`, { key, body: { reason: 'sold out' } });

  const res = await t.request('GET', '/v1/events?limit=100', { key });
  assert.equal(res.status, 200);
  const events = [...res.body.data].reverse();
  assert.deepEqual(
    events.map((e: any) => `${e.type}:${e.data.object.id === a.id ? 'a' : 'b'}`),
    [
      'ticket.created:a',
      'ticket.ready:a',
      'ticket.rung:a',
      'ticket.rung:a',
      'ticket.collected:a',
      'ticket.created:b',
      'ticket.cancelled:b',
    ],
  );
  const rungs = events.filter((e: any) => e.type === 'ticket.rung');
  assert.deepEqual(
    rungs.map((e: any) => e.data.ring.reason),
    ['ready', 'manual'],
  );
  assert.deepEqual(
    rungs.map((e: any) => [e.data.ring.rang, e.data.ring.channel_used]),
    [
      [false, 'none'],
      [false, 'none'],
    ],
  );
  for (const e of events) {
    assert.match(e.id, /^evt_/);
    assert.equal(e.object, 'event');
    assert.equal(e.livemode, false);
    assert.equal(e.branch, tenant.branchId);
  }
  const filtered = await t.request('GET', '/v1/events?type=ticket.cancelled', { key });
  assert.deepEqual(
    filtered.body.data.map((e: any) => e.data.object.id),
    [b.id],
  );
  assert.equal(filtered.body.data[0].data.object.cancellation_reason, 'sold out');
});

test('a display number or other non-id in the path: 404 saying what an id looks like and how to find the ticket', async () => {
  const tk = await createTicket(t, { body: { queue: 'A' } });
  for (const path of [
    `/v1/tickets/${tk.display_number}`,
    `/v1/tickets/${tk.display_number}/ready`,
    `/v1/tickets/${tk.display_number}/qr.svg`,
  ]) {
    const res = await t.request(path.endsWith('/ready') ? 'POST' : 'GET', path);
    assert.equal(res.status, 404, path);
    assert.equal(res.body.code, 'not-found');
    assert.match(res.body.detail, new RegExp(`"${tk.display_number}" looks like a display number, not a ticket id`), path);
    assert.match(res.body.detail, /Ticket ids look like tk_[0-9a-z]{26}/);
    assert.match(res.body.detail, /GET \/v1\/tickets\?queue=A&status=created,ready/);
  }
  // The search the detail names finds the ticket by its display number.
  const listed = await t.request('GET', '/v1/tickets?queue=A&status=created,ready');
  assert.equal(listed.body.data.find((x: any) => x.display_number === tk.display_number)?.id, tk.id);

  const other = await t.request('GET', '/v1/tickets/1001');
  assert.equal(other.status, 404);
  assert.match(other.body.detail, /"1001" is not a ticket id\. Ticket ids look like tk_/);
  // A well-formed id that is not this branch's is simply not found (no hint that it exists elsewhere).
  const unknown = await t.request('GET', `/v1/tickets/tk_${'0'.repeat(26)}`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.detail, 'No such ticket.');
});
