// Idempotency and the ready guard under concurrency (PRODUCT.md §4), on one node and on two nodes
// sharing one store. Each test uses its own tenant, so its 50 writes have a full bucket.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { storeName } from '../helpers/store.ts';
import { countRows, CountingRinger, createTicket, startSecondNode } from '../helpers/tickets.ts';

let t: TestApp;
let ringer: CountingRinger;
before(async () => {
  ringer = new CountingRinger();
  t = await startTestApp({ ringer: () => ringer });
});
after(() => t.close());

const N = 50;
const idem = (key: string) => ({ 'idempotency-key': key });

function report(what: string, started: number, results: Res[]): void {
  const statuses = new Map<number, number>();
  for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const summary = [...statuses].map(([s, n]) => `${n}×${s}`).join(', ');
  console.log(`# idempotency [${storeName}]: ${what}: ${summary} in ${(performance.now() - started).toFixed(0)} ms`);
}

/** A POST with an Idempotency-Key straight to a node's URL (this one's, or a second node's). */
async function post(base: string, apiKey: string, path: string, key: string, body?: unknown): Promise<Res> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

async function events(key: string, type: string): Promise<number> {
  return (await t.request('GET', `/v1/events?type=${type}&limit=100`, { key })).body.data.length;
}

test('50 concurrent identical creates with one key: one ticket, 50 identical bodies', async () => {
  const { branchId, testKey } = await t.newTenant();
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: N }, () =>
      t.request('POST', '/v1/tickets', { key: testKey, body: { external_ref: 'pos-42' }, headers: idem('create-once') }),
    ),
  );
  report('50 identical creates, one key', started, results);
  assert.deepEqual(
    results.map((r) => r.status),
    Array(N).fill(201),
  );
  assert.equal(new Set(results.map((r) => r.text)).size, 1, 'byte-identical bodies');
  assert.equal(results.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, N - 1);
  assert.equal(await countRows(t, 'tickets', branchId), 1);
  assert.equal(await events(testKey, 'ticket.created'), 1);
});

test('50 concurrent readies with one key: one transition, one ring, identical bodies', async () => {
  const { branchId, testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  const calls = ringer.calls;
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: N }, () => t.request('POST', `/v1/tickets/${tk.id}/ready`, { key: testKey, headers: idem('ready-once') })),
  );
  report('50 readies, one key', started, results);
  assert.deepEqual(
    results.map((r) => r.status),
    Array(N).fill(200),
  );
  assert.equal(new Set(results.map((r) => r.text)).size, 1, 'byte-identical bodies');
  assert.equal(results[0]!.body.ticket.rings, 1);
  assert.equal(ringer.calls - calls, 1, 'one ring attempt');
  assert.equal(await countRows(t, 'rings', branchId), 1);
  assert.equal(await events(testKey, 'ticket.ready'), 1);
  assert.equal(await events(testKey, 'ticket.rung'), 1);
  assert.equal((await t.request('GET', `/v1/tickets/${tk.id}`, { key: testKey })).body.rings, 1);
});

test('50 concurrent readies with 50 keys: exactly one 200 and 49 409', async () => {
  const { branchId, testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  const calls = ringer.calls;
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) => t.request('POST', `/v1/tickets/${tk.id}/ready`, { key: testKey, headers: idem(`ready-${i}`) })),
  );
  report('50 readies, 50 keys', started, results);
  assert.equal(results.filter((r) => r.status === 200).length, 1);
  const conflicts = results.filter((r) => r.status === 409);
  assert.equal(conflicts.length, N - 1);
  for (const c of conflicts) {
    assert.equal(c.body.code, 'ticket-state-conflict');
    assert.equal(c.body.ticket_status, 'ready');
  }
  assert.equal(ringer.calls - calls, 1);
  assert.equal(await countRows(t, 'rings', branchId), 1);
  assert.equal(await events(testKey, 'ticket.rung'), 1);
});

test('without any key, two concurrent readies ring once: one 200, one 409', async () => {
  const { branchId, testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  const results = await Promise.all([0, 1].map(() => t.request('POST', `/v1/tickets/${tk.id}/ready`, { key: testKey })));
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
  assert.equal(await countRows(t, 'rings', branchId), 1);
});

test('concurrent manual rings of a ready ticket: one rings, the others are told to wait', async () => {
  const clock = t.app.services.clock;
  const { branchId, testKey } = await t.newTenant();
  const tk = await createTicket(t, { key: testKey });
  await t.request('POST', `/v1/tickets/${tk.id}/ready`, { key: testKey });
  // Make the ready ring 10 s old without sleeping: the 10 s rule compares stored times.
  await t.app.services.db.write((tx) => tx.run('UPDATE tickets SET last_ring_at = $2 WHERE id = $1', [tk.id, clock.now() - 10_000]));
  const results = await Promise.all(Array.from({ length: 10 }, () => t.request('POST', `/v1/tickets/${tk.id}/ring`, { key: testKey })));
  assert.deepEqual(results.map((r) => r.status).sort(), [200, ...Array(9).fill(429)]);
  assert.equal(await countRows(t, 'rings', branchId), 2);
});

test('two nodes on one store: the same key sent to both at once has one effect', async () => {
  const node2 = await startSecondNode(t);
  const url2 = node2.url;
  try {
    const { branchId, testKey } = await t.newTenant();
    const tk = await createTicket(t, { key: testKey });
    const send = (base: string, path: string, key: string, body?: unknown) => post(base, testKey, path, key, body);
    const started = performance.now();
    const creates = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 ? url2 : t.url, '/v1/tickets', 'two-nodes-create', { external_ref: 'n' })),
    );
    const readies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 ? url2 : t.url, `/v1/tickets/${tk.id}/ready`, 'two-nodes-ready')),
    );
    report('two nodes, 20 creates + 20 readies, one key each', started, [...creates, ...readies]);
    for (const batch of [creates, readies]) {
      assert.deepEqual([...new Set(batch.map((r) => r.status))], [batch === creates ? 201 : 200]);
      assert.equal(new Set(batch.map((r) => r.text)).size, 1);
    }
    assert.equal(await countRows(t, 'tickets', branchId), 2);
    assert.equal(await countRows(t, 'rings', branchId), 1);
    assert.equal(await events(testKey, 'ticket.rung'), 1);
  } finally {
    await node2.stop();
  }
});

test('two nodes on one store: a write that would succeed twice (an announcement), sent to both at once with one key, has one effect', async () => {
  const node2 = await startSecondNode(t);
  try {
    const { testKey } = await t.newTenant();
    const body = { message: 'Back in 5 minutes' };
    const started = performance.now();
    // The second request's transaction inserts its own announcement, then finds the key taken and
    // rolls back: on PostgreSQL its key's insert waits for the first's uncommitted record.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(i % 2 ? node2.url : t.url, testKey, '/v1/announcements', 'announce-once', body)),
    );
    report('two nodes, 20 announcements, one key', started, results);
    assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
    assert.equal(new Set(results.map((r) => r.text)).size, 1, 'byte-identical bodies');
    assert.equal(results.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 19);
    const again = await post(t.url, testKey, '/v1/announcements', 'announce-once', body);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, results[0]!.text);
    const listed = (await t.request('GET', '/v1/announcements', { key: testKey })).body.data;
    assert.deepEqual(
      listed.map((a: { id: string }) => a.id),
      [results[0]!.body.id],
    );
  } finally {
    await node2.stop();
  }
});
