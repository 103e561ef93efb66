// POST /v1/tickets has one path: createTicket describes every row, and the store commits them,
// in one transaction on SQLite and in two statements shared by concurrent creates on PostgreSQL
// (Db.commitCreate: src/core/ticket-create.ts, docs/decisions/0010-one-create-path.md). These tests hold both
// commits to the same rows, keyed creates to the rows of unkeyed ones plus their key's record,
// and every case the PostgreSQL statements settle (unknown queue, held number, stale branch,
// many endpoints, a taken key) to the answers a transaction gives.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type Res, type Tenant, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { onlyOnPostgres, storeName } from '../helpers/store.ts';
import { eventually } from '../helpers/eventually.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, fakeLookup } from '../helpers/webhooks.ts';
import type { PostgresDb } from '../../src/store/postgres/postgres-db.ts';

const onPostgres = storeName === 'postgres';
const clock = new FakeClock();
const ENV = { RATE_LIMIT_WRITES_BURST: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' };
let t: TestApp;
let transactions = 0;

/** Counts the app's transactional writes: a create on PostgreSQL runs none. */
function countTransactions(app: TestApp): void {
  const db = app.app.services.db;
  const write = db.write.bind(db);
  db.write = (fn) => {
    transactions++;
    return write(fn);
  };
}

before(async () => {
  t = await startTestApp({ clock, env: ENV, webhookLookup: fakeLookup({ 'hooks.example.com': '93.184.216.34' }) });
  countTransactions(t);
});
after(() => t.close());

/** What a create costs in transactions on this store: none on PostgreSQL, one write of the group commit on SQLite. */
const TRANSACTIONS_PER_CREATE = onPostgres ? 0 : 1;

async function create(app: TestApp, tenant: Tenant, body: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const before = transactions;
  const res = await app.request('POST', '/v1/tickets', { key: tenant.testKey, body, headers });
  return { res, transactions: transactions - before };
}

/** Counts the statements that insert tickets on the store (PostgreSQL: one per batch of creates). */
function countStatements(): { n: number; stop(): void } {
  const db = t.app.services.db;
  const query = db.query;
  const counter = {
    n: 0,
    stop: () => {
      db.query = query;
    },
  };
  db.query = ((sql: string, params?: readonly unknown[]) => {
    if (sql.includes('INSERT INTO tickets')) counter.n++;
    return query.call(db, sql, params);
  }) as typeof db.query;
  return counter;
}

const rowsOf = (app: TestApp) => (sql: string, params: unknown[]) => app.app.services.db.query<Record<string, unknown>>(sql, params);
const rows = (sql: string, params: unknown[]) => rowsOf(t)(sql, params);

/** Everything a create stored, with its own ids (and its tenant's) replaced by names so two creates compare. */
async function stored(app: TestApp, tenant: Tenant, ticketId: string) {
  const q = rowsOf(app);
  const [ticket] = await q('SELECT * FROM tickets WHERE id = $1', [ticketId]);
  const [event] = await q("SELECT * FROM events WHERE type = 'ticket.created' AND body LIKE $1", [`%${ticketId}%`]);
  const deliveries = await q('SELECT * FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id', [event!.id]);
  const jobs = await q('SELECT * FROM jobs WHERE key LIKE $1 ORDER BY key', [`deliver:${event!.id}:%`]);
  const request = JSON.parse(String(event!.body)).request;
  const endpoints = await q('SELECT id FROM webhook_endpoints WHERE branch_id = $1 ORDER BY id', [tenant.branchId]);
  const names = new Map<string, string>([
    [String(ticket!.id), 'TICKET'],
    [String(ticket!.token), 'TOKEN'],
    [String(event!.id), 'EVENT'],
    [tenant.branchId, 'BRANCH'],
    [tenant.accountId, 'ACCOUNT'],
    // The display number as a JSON string, within the body (escaped once more) and outside it.
    [`\\"${ticket!.display_number}\\"`, '\\"DISPLAY\\"'],
    [`"${ticket!.display_number}"`, '"DISPLAY"'],
    [request.id, 'REQUEST'],
  ]);
  if (request.idempotency_key !== null) names.set(request.idempotency_key, 'KEY');
  for (const [i, e] of endpoints.entries()) names.set(String(e.id), `ENDPOINT${i}`);
  for (const [i, d] of deliveries.entries()) names.set(String(d.id), `DELIVERY${i}`);
  for (const [i, j] of jobs.entries()) names.set(String(j.id), `JOB${i}`);
  const anonymous = <T>(v: T): T => {
    let s = JSON.stringify(v);
    for (const [from, to] of names) s = s.replaceAll(from, to);
    return JSON.parse(s);
  };
  const { number, display_number, ...rest } = ticket!;
  return {
    ticket: anonymous(rest),
    number,
    display_number,
    event: anonymous(event),
    deliveries: anonymous(deliveries),
    jobs: anonymous(jobs),
    body: String(event!.body),
  };
}

/** A tenant with four endpoints of which two want ticket.created, one disabled, and one in live mode. */
async function tenantWithEndpoints(app: TestApp): Promise<Tenant> {
  const tenant = await app.newTenant();
  const key = tenant.testKey;
  const url = 'http://127.0.0.1:9/hook';
  await createEndpoint(app, { url }, key);
  await createEndpoint(app, { url, enabled_events: ['ticket.created', 'ticket.ready'] }, key);
  await createEndpoint(app, { url, enabled_events: ['ticket.ready'] }, key);
  const off = await createEndpoint(app, { url }, key);
  assert.equal((await app.request('PATCH', `/v1/webhook_endpoints/${off.id}`, { key, body: { disabled: true } })).status, 200);
  await createEndpoint(app, { url: 'https://hooks.example.com/readybell' }, tenant.liveKey);
  return tenant;
}

const BODY = { queue: 'A', external_ref: 'order-7', customer_phone: '+33612345678', metadata: { table: '12', note: 'é "quoted" \u2028' } };

test("a keyed create stores what an unkeyed one stores, row for row, and its key's record holds the answer", async () => {
  const tenant = await tenantWithEndpoints(t);
  const plain = await create(t, tenant, BODY);
  const keyed = await create(t, tenant, BODY, { 'idempotency-key': 'row-for-row' });
  assert.equal(plain.res.status, 201);
  assert.equal(keyed.res.status, 201);
  assert.equal(plain.transactions, TRANSACTIONS_PER_CREATE);
  assert.equal(keyed.transactions, TRANSACTIONS_PER_CREATE, 'a keyed create takes the same path');
  assert.equal(plain.res.headers.get('content-type'), keyed.res.headers.get('content-type'));

  const a = await stored(t, tenant, plain.res.body.id);
  const b = await stored(t, tenant, keyed.res.body.id);
  assert.deepEqual([a.display_number, b.display_number], ['A-1', 'A-2']);
  assert.deepEqual(a.ticket, b.ticket);
  // The envelope names the request's key: null for the plain create.
  assert.deepEqual({ ...a.event, body: String(a.event!.body).replace('"idempotency_key":null', '"idempotency_key":"KEY"') }, b.event);
  assert.equal(a.deliveries.length, 2);
  assert.deepEqual(a.deliveries, b.deliveries);
  assert.deepEqual(a.jobs, b.jobs);
  // The body is the answer's ticket in the envelope, byte for byte as recordEvent writes it.
  for (const [s, r] of [
    [a, plain.res],
    [b, keyed.res],
  ] as const) {
    const envelope = JSON.parse(s.body);
    assert.equal(s.body, JSON.stringify({ ...envelope, data: { object: r.body } }));
  }
  const anonymous = (res: typeof plain.res, n: string) =>
    res.text.replaceAll(res.body.id, 'TICKET').replace(res.body.url, 'URL').replace(`"${n}"`, '"DISPLAY"');
  assert.equal(anonymous(plain.res, 'A-1'), anonymous(keyed.res, 'A-2'));

  const [record] = await rows(
    'SELECT state, response_status, response_body, locked_until FROM idempotency_keys WHERE branch_id = $1 AND key = $2',
    [tenant.branchId, 'row-for-row'],
  );
  assert.deepEqual({ ...record }, { state: 'done', response_status: 201, response_body: keyed.res.text, locked_until: null });
  assert.equal(
    (await rows('SELECT key FROM idempotency_keys WHERE branch_id = $1', [tenant.branchId])).length,
    1,
    'the plain create records no key',
  );
});

test('a create stores on PostgreSQL what it stores on SQLite, row for row', onlyOnPostgres, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-create-'));
  const embedded = await startTestApp({ clock, env: { ...ENV, DATABASE_URL: '', DATA_DIR: dir } });
  try {
    assert.equal(embedded.app.services.db.dialect, 'sqlite');
    const pg = await tenantWithEndpoints(t);
    const sqlite = await tenantWithEndpoints(embedded);
    for (const key of [null, 'across-stores']) {
      const headers = key === null ? undefined : { 'idempotency-key': key };
      const a = await create(t, pg, BODY, headers);
      const b = await create(embedded, sqlite, BODY, headers);
      assert.equal(a.res.status, 201);
      assert.equal(b.res.status, 201);
      const x = await stored(t, pg, a.res.body.id);
      const y = await stored(embedded, sqlite, b.res.body.id);
      assert.equal(x.display_number, y.display_number);
      assert.deepEqual(x.ticket, y.ticket);
      assert.deepEqual(x.event, y.event);
      assert.equal(x.deliveries.length, 2);
      assert.deepEqual(x.deliveries, y.deliveries);
      assert.deepEqual(x.jobs, y.jobs);
      if (key !== null) {
        const record = async (app: TestApp, tenant: Tenant) =>
          (
            await rowsOf(app)(
              'SELECT fingerprint, state, locked_until, response_status, created_at FROM idempotency_keys WHERE branch_id = $1 AND key = $2',
              [tenant.branchId, key],
            )
          ).map((r) => ({ ...r }));
        assert.deepEqual(await record(t, pg), await record(embedded, sqlite));
      }
    }
  } finally {
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('200 concurrent creates on one queue, keyed and not, share statements and are numbered 1 to 200', onlyOnPostgres, async () => {
  const tenant = await t.newTenant();
  const before = transactions;
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      t.request('POST', '/v1/tickets', {
        key: tenant.testKey,
        body: { queue: 'A' },
        headers: i % 2 === 0 ? { 'idempotency-key': `concurrent-${i}` } : undefined,
      }),
    ),
  );
  assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
  assert.equal(transactions - before, 0);
  const numbers = results.map((r) => Number(r.body.display_number.slice(2))).sort((x, y) => x - y);
  assert.deepEqual(
    numbers,
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
  assert.deepEqual(
    await rows("SELECT COUNT(*)::int AS n FROM events WHERE branch_id = $1 AND type = 'ticket.created'", [tenant.branchId]),
    [{ n: 200 }],
  );
  assert.deepEqual(await rows('SELECT COUNT(*)::int AS n FROM idempotency_keys WHERE branch_id = $1', [tenant.branchId]), [{ n: 100 }]);
});

test(
  'concurrent creates of several branches, modes and queues share statements and each gets its own number, event and deliveries',
  onlyOnPostgres,
  async () => {
    const tenants = [await t.newTenant(), await t.newTenant()];
    for (const tenant of tenants) {
      await createEndpoint(t, { url: 'http://127.0.0.1:9/hook' }, tenant.testKey);
      assert.equal((await t.request('POST', '/v1/queues', { key: tenant.testKey, body: { name: 'B' } })).status, 201);
    }
    const statements = countStatements();
    const calls = Array.from({ length: 120 }, (_, i) => ({
      tenant: tenants[i % 2]!,
      key: i % 3 === 0 ? ('liveKey' as const) : ('testKey' as const),
      queue: i % 4 < 2 ? 'A' : 'B',
    }));
    let results: Res[];
    try {
      results = await Promise.all(
        calls.map((c, i) =>
          t.request('POST', '/v1/tickets', {
            key: c.tenant[c.key],
            body: { queue: c.queue },
            headers: i % 5 === 0 ? { 'idempotency-key': `mixed-${i}` } : undefined,
          }),
        ),
      );
    } finally {
      statements.stop();
    }
    assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
    assert.ok(statements.n < calls.length, `${statements.n} statements for ${calls.length} creates`);
    const numbers = new Map<string, number[]>();
    results.forEach((r, i) => {
      const group = `${calls[i]!.tenant.branchId} ${calls[i]!.key} ${calls[i]!.queue}`;
      numbers.set(group, [...(numbers.get(group) ?? []), Number(r.body.display_number.split('-')[1])]);
      assert.equal(r.body.livemode, calls[i]!.key === 'liveKey');
      assert.equal(r.body.branch, calls[i]!.tenant.branchId);
    });
    for (const [, ns] of numbers)
      assert.deepEqual(
        ns.sort((x, y) => x - y),
        ns.map((_, i) => i + 1),
      );
    for (const [i, r] of results.entries()) {
      const [event] = await rows('SELECT id, branch_id, mode, body FROM events WHERE body LIKE $1', [`%${r.body.id}%`]);
      assert.deepEqual(JSON.parse(String(event!.body)).data.object, r.body);
      assert.equal(event!.branch_id, calls[i]!.tenant.branchId);
      const deliveries = await rows(
        'SELECT d.mode, j.payload FROM webhook_deliveries d JOIN jobs j ON j.key = $2 || d.endpoint_id WHERE d.event_id = $1',
        [event!.id, `deliver:${event!.id}:`],
      );
      // Only the test endpoint wants events, and only test events.
      assert.equal(deliveries.length, calls[i]!.key === 'testKey' ? 1 : 0);
    }
  },
);

test('creates sharing a statement with numbers held since yesterday: the held ones take the next numbers', onlyOnPostgres, async () => {
  const tenant = await t.newTenant({ timezone: 'Europe/Paris' });
  clock.set(Date.parse('2026-12-01T22:00:00.000Z'));
  const made = [];
  for (let i = 0; i < 3; i++) made.push((await create(t, tenant)).res.body);
  assert.equal((await t.request('POST', `/v1/tickets/${made[1].id}/collect`, { key: tenant.testKey })).status, 200);
  clock.set(Date.parse('2026-12-01T23:30:00.000Z'));
  const results = await Promise.all(Array.from({ length: 30 }, () => t.request('POST', '/v1/tickets', { key: tenant.testKey, body: {} })));
  assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
  const numbers = results.map((r) => Number(r.body.display_number.slice(2))).sort((x, y) => x - y);
  assert.deepEqual(numbers, [2, ...Array.from({ length: 29 }, (_, i) => i + 4)]);
  clock.set(Date.parse('2026-11-22T12:00:00.000Z'));
});

test('an unknown queue gets the same 422 with or without a key, leaves no counter behind, and is what the key replays', async () => {
  const tenant = await t.newTenant();
  const plain = await create(t, tenant, { queue: 'NOPE' });
  const keyed = await create(t, tenant, { queue: 'NOPE' }, { 'idempotency-key': 'unknown-queue' });
  assert.equal(plain.res.status, 422);
  assert.deepEqual({ ...plain.res.body, request_id: null, instance: null }, { ...keyed.res.body, request_id: null, instance: null });
  assert.equal(plain.res.body.errors?.[0]?.pointer ?? plain.res.body.pointer ?? '/queue', '/queue');
  assert.match(plain.res.text, /Queue \\?"NOPE\\?" does not exist/);
  assert.deepEqual(await rows('SELECT * FROM queue_counters WHERE branch_id = $1', [tenant.branchId]), []);
  assert.deepEqual(await rows('SELECT id FROM tickets WHERE branch_id = $1', [tenant.branchId]), []);
  // The queue created afterwards does not turn the refused request into a ticket (decision 0002).
  assert.equal((await t.request('POST', '/v1/queues', { key: tenant.testKey, body: { name: 'NOPE' } })).status, 201);
  const replay = await create(t, tenant, { queue: 'NOPE' }, { 'idempotency-key': 'unknown-queue' });
  assert.equal(replay.res.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.res.text, keyed.res.text);
  assert.deepEqual(await rows('SELECT id FROM tickets WHERE branch_id = $1', [tenant.branchId]), []);
});

test('a replayed create takes no number, and a key reused with another body writes nothing', async () => {
  const tenant = await t.newTenant();
  const first = await create(t, tenant, { external_ref: 'once' }, { 'idempotency-key': 'no-number' });
  assert.equal(first.res.body.display_number, 'A-1');
  const replay = await create(t, tenant, { external_ref: 'once' }, { 'idempotency-key': 'no-number' });
  assert.equal(replay.res.status, 201);
  assert.equal(replay.res.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.res.text, first.res.text);
  const reuse = await create(t, tenant, { external_ref: 'other' }, { 'idempotency-key': 'no-number' });
  assert.equal(reuse.res.status, 422);
  assert.equal(reuse.res.body.code, 'idempotency-key-reuse');
  assert.equal((await create(t, tenant)).res.body.display_number, 'A-2');
  assert.equal((await rows('SELECT id FROM tickets WHERE branch_id = $1', [tenant.branchId])).length, 2);
  assert.equal((await rows("SELECT id FROM events WHERE branch_id = $1 AND type = 'ticket.created'", [tenant.branchId])).length, 2);
});

test('a number held by a ticket open since yesterday is skipped, keyed or not', async () => {
  const tenant = await t.newTenant({ timezone: 'Europe/Paris' });
  clock.set(Date.parse('2026-12-01T22:00:00.000Z'));
  const held = (await create(t, tenant)).res.body;
  const done = (await create(t, tenant)).res.body;
  assert.equal((await t.request('POST', `/v1/tickets/${done.id}/collect`, { key: tenant.testKey })).status, 200);
  clock.set(Date.parse('2026-12-01T23:30:00.000Z')); // the next Paris day: its counter restarts at 1, held
  const next = await create(t, tenant, {}, { 'idempotency-key': 'after-held' });
  assert.equal(next.res.status, 201);
  assert.equal(next.res.body.display_number, 'A-2');
  assert.equal(next.transactions, TRANSACTIONS_PER_CREATE, 'the held number took the same path');
  assert.equal((await create(t, tenant)).res.body.display_number, 'A-3');
  assert.equal((await t.request('GET', `/v1/tickets/${held.id}`, { key: tenant.testKey })).body.display_number, 'A-1');
  clock.set(Date.parse('2026-11-22T12:00:00.000Z'));
});

test('branch changes, made here or by another node, are honoured by the next create', async () => {
  const tenant = await t.newTenant();
  const key = tenant.testKey;
  const expiresAt = async (id: string) => Number((await rows('SELECT expires_at FROM tickets WHERE id = $1', [id]))[0]!.expires_at);
  const first = await create(t, tenant);
  assert.equal(await expiresAt(first.res.body.id), clock.now() + 12 * 3600_000);

  assert.equal((await t.request('POST', '/v1/queues', { key, body: { name: 'B' } })).status, 201);
  assert.equal(
    (await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { expiry_hours: 2, default_queue: 'B' } })).status,
    200,
  );
  const second = await create(t, tenant, {}, { 'idempotency-key': 'after-patch' });
  assert.equal(second.res.body.display_number, 'B-1');
  assert.equal(await expiresAt(second.res.body.id), clock.now() + 2 * 3600_000);
  assert.equal(second.transactions, TRANSACTIONS_PER_CREATE);

  // Another node's change reaches only the database; the day restarts in the new zone.
  clock.set(Date.parse('2026-11-22T23:30:00.000Z')); // 22 Nov in UTC, 23 Nov in Tokyo
  const b2 = (await create(t, tenant)).res.body;
  assert.equal(b2.display_number, 'B-2');
  // A settings change makes the node's copy stale: the numbers are not taken until it is fresh,
  // so the change costs a retry, never a gap in the queue's numbers.
  assert.equal((await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { expiry_hours: 3 } })).status, 200);
  const b3 = (await create(t, tenant)).res.body;
  assert.equal(b3.display_number, 'B-3');
  assert.equal(await expiresAt(b3.id), clock.now() + 3 * 3600_000);
  // Closed, so that the new day's numbers are free: only the zone decides what comes next.
  for (const id of [second.res.body.id, b2.id, b3.id])
    assert.equal((await t.request('POST', `/v1/tickets/${id}/collect`, { key })).status, 200);
  await t.app.services.db.write((tx) =>
    tx.run("UPDATE branches SET timezone = 'Asia/Tokyo', settings = $2 WHERE id = $1", [
      tenant.branchId,
      JSON.stringify({ expiry_hours: 5 }),
    ]),
  );
  const third = await create(t, tenant);
  assert.equal(third.res.body.display_number, 'B-1');
  assert.equal(third.transactions, TRANSACTIONS_PER_CREATE);
  assert.equal(await expiresAt(third.res.body.id), clock.now() + 5 * 3600_000);
  assert.deepEqual(
    (
      await rows('SELECT day, last_number FROM queue_counters WHERE branch_id = $1 AND queue = $2 ORDER BY day', [tenant.branchId, 'B'])
    ).map((r) => [r.day, Number(r.last_number)]),
    [
      ['2026-11-22', 3],
      ['2026-11-23', 1],
    ],
  );
  clock.set(Date.parse('2026-11-22T12:00:00.000Z'));
});

test('a branch with as many endpoints as it may have gets every delivery, keyed or not', async () => {
  const tenant = await t.newTenant();
  for (let i = 0; i < 16; i++) await createEndpoint(t, { url: `http://127.0.0.1:9/hook${i}` }, tenant.testKey);
  for (const headers of [undefined, { 'idempotency-key': 'many-endpoints' }]) {
    const made = await create(t, tenant, {}, headers);
    assert.equal(made.res.status, 201);
    assert.equal(made.transactions, TRANSACTIONS_PER_CREATE);
    assert.equal(
      (
        await rows('SELECT id FROM webhook_deliveries WHERE branch_id = $1 AND event_id = (SELECT id FROM events WHERE body LIKE $2)', [
          tenant.branchId,
          `%${made.res.body.id}%`,
        ])
      ).length,
      16,
    );
  }
});

test("with the workers running, the jobs go to this node's runner with the answer and are delivered once", async () => {
  const receiver = await new WebhookReceiver().start();
  receiver.nowSeconds = () => Math.floor(clock.now() / 1000);
  t.app.startWorkers();
  try {
    const tenant = await t.newTenant();
    const e = await createEndpoint(t, { url: `${receiver.url}/hook` }, tenant.testKey);
    receiver.secrets = [e.secret];
    const statements = countStatements();
    const made = await create(t, tenant, {}, { 'idempotency-key': 'handed-over' });
    statements.stop();
    assert.equal(made.res.status, 201);
    if (onPostgres) assert.equal(statements.n, 1, 'the create ran as one statement of rows');
    const mine = () => receiver.deliveries.filter((d) => d.event?.branch === tenant.branchId);
    await eventually(() => mine().length === 1, 'the ticket.created delivery');
    const [job] = await rows('SELECT locked_by, attempts FROM jobs WHERE key LIKE $1', [`deliver:${mine()[0]!.event!.id}:%`]);
    assert.notEqual(job!.locked_by, null, 'written already leased to this runner');
    assert.equal(Number(job!.attempts), 1);
    assert.equal((mine()[0]!.event!.data.object as { id: string }).id, made.res.body.id);
    const storedEvent = await t.request('GET', `/v1/events/${mine()[0]!.event!.id}`, { key: tenant.testKey });
    assert.equal(mine()[0]!.body, storedEvent.text);
  } finally {
    await receiver.close();
  }
});

test('numbers are taken on connections that do not wait for the WAL flush; tickets commit on ones that do', onlyOnPostgres, async () => {
  // The counters' commit may skip its flush only because the rows' commit, which follows it
  // and waits, flushes it too (docs/decisions/0010-one-create-path.md).
  const db = t.app.services.db as PostgresDb;
  assert.deepEqual(await db.queryUnflushed('SHOW synchronous_commit'), [{ synchronous_commit: 'off' }]);
  assert.deepEqual(await db.query('SHOW synchronous_commit'), [{ synchronous_commit: 'on' }]);
  // And they find every row by its index, whatever a plan made on small tables would choose.
  assert.deepEqual(await db.queryUnflushed('SHOW enable_seqscan'), [{ enable_seqscan: 'off' }]);
});
