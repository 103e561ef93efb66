// POST /v1/tickets on PostgreSQL without an Idempotency-Key is one statement outside a transaction
// (docs/decisions/0010-postgres-create-one-statement.md). These tests hold it to the
// transactional path it stands in for: the same rows, the same event body byte for byte, the same
// deliveries; and every case it cannot settle still gets that path's answer. On SQLite only the
// transactional path exists; the answers are checked there too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { storeName } from '../helpers/store.ts';
import { eventually } from '../helpers/eventually.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, fakeLookup } from '../helpers/webhooks.ts';
import type { EventHook } from '../../src/actions/record-event.ts';
import type { PostgresDb } from '../../src/store/postgres/postgres-db.ts';

const onPostgres = storeName === 'postgres';
// The one-statement path exists only on PostgreSQL: there its tests are registered; on SQLite they
// would have nothing to test, so they are left out rather than reported as skipped.
const postgresTest: typeof test = onPostgres ? test : ((() => undefined) as unknown as typeof test);
const clock = new FakeClock();
let t: TestApp;
let transactions = 0;

before(async () => {
  t = await startTestApp({ clock, env: { RATE_LIMIT_WRITES_BURST: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  t.app.services.webhookLookup = fakeLookup({ 'hooks.example.com': '93.184.216.34' });
  // Every transactional write passes here; the one-statement create does not.
  const db = t.app.services.db;
  const write = db.write.bind(db);
  db.write = (fn) => {
    transactions++;
    return write(fn);
  };
});
after(() => t.close());

/** Runs `fn` with an event hook that is not the webhook fan-out: creates take the transactional path. */
async function transactional<T>(fn: () => Promise<T>): Promise<T> {
  const hooks = t.app.services.eventHooks;
  const other: EventHook = async () => {};
  hooks.push(other);
  try {
    return await fn();
  } finally {
    hooks.splice(hooks.indexOf(other), 1);
  }
}

async function create(tenant: Tenant, body: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const before = transactions;
  const res = await t.request('POST', '/v1/tickets', { key: tenant.testKey, body, headers });
  return { res, transactions: transactions - before };
}

/** Counts the one-statement creates run on the store (the transactional path runs none). */
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

const rows = (sql: string, params: unknown[]) => t.app.services.db.query<Record<string, unknown>>(sql, params);

/** Everything a create stored, with its own ids replaced by names so two creates compare. */
async function stored(ticketId: string) {
  const [ticket] = await rows('SELECT * FROM tickets WHERE id = $1', [ticketId]);
  const [event] = await rows("SELECT * FROM events WHERE type = 'ticket.created' AND body LIKE $1", [`%${ticketId}%`]);
  const deliveries = await rows('SELECT * FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id', [event!.id]);
  const jobs = await rows('SELECT * FROM jobs WHERE key LIKE $1 ORDER BY key', [`deliver:${event!.id}:%`]);
  const names = new Map<string, string>([
    [String(ticket!.id), 'TICKET'],
    [String(ticket!.token), 'TOKEN'],
    [String(event!.id), 'EVENT'],
    // The display number as a JSON string, within the body (escaped once more) and outside it.
    [`\\"${ticket!.display_number}\\"`, '\\"DISPLAY\\"'],
    [`"${ticket!.display_number}"`, '"DISPLAY"'],
    [JSON.parse(String(event!.body)).request.id, 'REQUEST'],
  ]);
  deliveries.forEach((d, i) => names.set(String(d.id), `DELIVERY${i}`));
  jobs.forEach((j, i) => names.set(String(j.id), `JOB${i}`));
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

postgresTest('a create without Idempotency-Key stores what the transactional path stores, row for row', async () => {
  const tenant = await t.newTenant();
  const key = tenant.testKey;
  const url = 'http://127.0.0.1:9/hook';
  await createEndpoint(t, { url }, key);
  await createEndpoint(t, { url, enabled_events: ['ticket.created', 'ticket.ready'] }, key);
  await createEndpoint(t, { url, enabled_events: ['ticket.ready'] }, key);
  const off = await createEndpoint(t, { url }, key);
  assert.equal((await t.request('PATCH', `/v1/webhook_endpoints/${off.id}`, { key, body: { disabled: true } })).status, 200);
  await createEndpoint(t, { url: 'https://hooks.example.com/readybell' }, tenant.liveKey);

  const body = {
    queue: 'A',
    external_ref: 'order-7',
    customer_phone: '+33612345678',
    metadata: { table: '12', note: 'é "quoted" \u2028' },
  };
  const fast = await create(tenant, body);
  const slow = await transactional(() => create(tenant, body));
  assert.equal(fast.res.status, 201);
  assert.equal(slow.res.status, 201);
  assert.equal(fast.transactions, 0, 'the create ran as one statement');
  assert.equal(slow.transactions, 1);
  assert.equal(fast.res.headers.get('content-type'), slow.res.headers.get('content-type'));

  const a = await stored(fast.res.body.id);
  const b = await stored(slow.res.body.id);
  assert.deepEqual([a.display_number, b.display_number], ['A-1', 'A-2']);
  assert.deepEqual(a.ticket, b.ticket);
  assert.deepEqual(a.event, b.event);
  assert.equal(a.deliveries.length, 2);
  assert.deepEqual(a.deliveries, b.deliveries);
  assert.deepEqual(a.jobs, b.jobs);
  // The body is the answer's ticket in the envelope, byte for byte as recordEvent writes it.
  const envelope = JSON.parse(a.body);
  assert.equal(a.body, JSON.stringify({ ...envelope, data: { object: fast.res.body } }));
  const anonymous = (res: typeof fast.res, n: string) =>
    res.text.replaceAll(res.body.id, 'TICKET').replace(res.body.url, 'URL').replace(`"${n}"`, '"DISPLAY"');
  assert.equal(anonymous(fast.res, 'A-1'), anonymous(slow.res, 'A-2'));
});

postgresTest('200 concurrent creates on one queue, each one statement, are numbered 1 to 200', async () => {
  const tenant = await t.newTenant();
  const before = transactions;
  const results = await Promise.all(
    Array.from({ length: 200 }, () => t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { queue: 'A' } })),
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
});

postgresTest(
  'concurrent creates of several branches, modes and queues share statements and each gets its own number, event and deliveries',
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
    let results;
    try {
      results = await Promise.all(calls.map((c) => t.request('POST', '/v1/tickets', { key: c.tenant[c.key], body: { queue: c.queue } })));
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

postgresTest('creates sharing a statement with numbers held since yesterday: the held ones take the next numbers', async () => {
  const tenant = await t.newTenant({ timezone: 'Europe/Paris' });
  clock.set(Date.parse('2026-12-01T22:00:00.000Z'));
  const made = [];
  for (let i = 0; i < 3; i++) made.push((await create(tenant)).res.body);
  assert.equal((await t.request('POST', `/v1/tickets/${made[1].id}/collect`, { key: tenant.testKey })).status, 200);
  clock.set(Date.parse('2026-12-01T23:30:00.000Z'));
  const results = await Promise.all(Array.from({ length: 30 }, () => t.request('POST', '/v1/tickets', { key: tenant.testKey, body: {} })));
  assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
  const numbers = results.map((r) => Number(r.body.display_number.slice(2))).sort((x, y) => x - y);
  assert.deepEqual(numbers, [2, ...Array.from({ length: 29 }, (_, i) => i + 4)]);
  clock.set(Date.parse('2026-11-22T12:00:00.000Z'));
});

test('an unknown queue gets the same 422 and leaves no counter behind', async () => {
  const tenant = await t.newTenant();
  const fast = await create(tenant, { queue: 'NOPE' });
  const slow = await transactional(() => create(tenant, { queue: 'NOPE' }));
  assert.equal(fast.res.status, 422);
  assert.deepEqual({ ...fast.res.body, request_id: null, instance: null }, { ...slow.res.body, request_id: null, instance: null });
  assert.equal(fast.res.body.errors?.[0]?.pointer ?? fast.res.body.pointer ?? '/queue', '/queue');
  assert.match(fast.res.text, /Queue \\?"NOPE\\?" does not exist/);
  assert.deepEqual(await rows('SELECT * FROM queue_counters WHERE branch_id = $1', [tenant.branchId]), []);
  assert.deepEqual(await rows('SELECT id FROM tickets WHERE branch_id = $1', [tenant.branchId]), []);
});

test('a number held by a ticket open since yesterday is skipped, as the transactional path skips it', async () => {
  const tenant = await t.newTenant({ timezone: 'Europe/Paris' });
  clock.set(Date.parse('2026-12-01T22:00:00.000Z'));
  const held = (await create(tenant)).res.body;
  const done = (await create(tenant)).res.body;
  assert.equal((await t.request('POST', `/v1/tickets/${done.id}/collect`, { key: tenant.testKey })).status, 200);
  clock.set(Date.parse('2026-12-01T23:30:00.000Z')); // the next Paris day: its counter restarts at 1, held
  const next = await create(tenant);
  assert.equal(next.res.status, 201);
  assert.equal(next.res.body.display_number, 'A-2');
  if (onPostgres) assert.equal(next.transactions, 1, 'the held number sent the create down the transactional path');
  assert.equal((await create(tenant)).res.body.display_number, 'A-3');
  assert.equal((await t.request('GET', `/v1/tickets/${held.id}`, { key: tenant.testKey })).body.display_number, 'A-1');
  clock.set(Date.parse('2026-11-22T12:00:00.000Z'));
});

test('branch changes, made here or by another node, are honoured by the next create', async () => {
  const tenant = await t.newTenant();
  const key = tenant.testKey;
  const expiresAt = async (id: string) => Number((await rows('SELECT expires_at FROM tickets WHERE id = $1', [id]))[0]!.expires_at);
  const first = await create(tenant);
  assert.equal(await expiresAt(first.res.body.id), clock.now() + 12 * 3600_000);

  assert.equal((await t.request('POST', '/v1/queues', { key, body: { name: 'B' } })).status, 201);
  assert.equal((await t.request('PATCH', '/v1/branch', { key, body: { expiry_hours: 2, default_queue: 'B' } })).status, 200);
  const second = await create(tenant);
  assert.equal(second.res.body.display_number, 'B-1');
  assert.equal(await expiresAt(second.res.body.id), clock.now() + 2 * 3600_000);
  if (onPostgres) assert.equal(second.transactions, 0);

  // Another node's change reaches only the database; the day restarts in the new zone.
  clock.set(Date.parse('2026-11-22T23:30:00.000Z')); // 22 Nov in UTC, 23 Nov in Tokyo
  const b2 = (await create(tenant)).res.body;
  assert.equal(b2.display_number, 'B-2');
  // A settings change makes the node's copy stale: the numbers are not taken until it is fresh,
  // so the change costs a retry, never a gap in the queue's numbers.
  assert.equal((await t.request('PATCH', '/v1/branch', { key, body: { expiry_hours: 3 } })).status, 200);
  const b3 = (await create(tenant)).res.body;
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
  const third = await create(tenant);
  assert.equal(third.res.body.display_number, 'B-1');
  if (onPostgres) assert.equal(third.transactions, 0);
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

test('a branch with more endpoints than the statement first brings ids for still gets every delivery', async () => {
  const tenant = await t.newTenant();
  for (let i = 0; i < 5; i++) await createEndpoint(t, { url: `http://127.0.0.1:9/hook${i}` }, tenant.testKey);
  for (let round = 0; round < 2; round++) {
    const made = await create(tenant);
    assert.equal(made.res.status, 201);
    if (onPostgres) assert.equal(made.transactions, 0);
    assert.equal(
      (
        await rows('SELECT id FROM webhook_deliveries WHERE branch_id = $1 AND event_id = (SELECT id FROM events WHERE body LIKE $2)', [
          tenant.branchId,
          `%${made.res.body.id}%`,
        ])
      ).length,
      5,
    );
  }
});

postgresTest('with an Idempotency-Key, or another event hook installed, the create is transactional', async () => {
  const tenant = await t.newTenant();
  const keyed = await create(tenant, {}, { 'idempotency-key': 'one-statement-test' });
  assert.equal(keyed.res.status, 201);
  assert.equal(keyed.transactions, 1);
  const hooked = await transactional(() => create(tenant));
  assert.equal(hooked.res.status, 201);
  assert.equal(hooked.transactions, 1);
  assert.equal(hooked.res.body.display_number, 'A-2');
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
    const made = await create(tenant);
    statements.stop();
    assert.equal(made.res.status, 201);
    if (onPostgres) assert.equal(statements.n, 1, 'the create ran as one statement');
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

postgresTest('numbers are taken on connections that do not wait for the WAL flush; tickets commit on ones that do', async () => {
  // The counters' commit may skip its flush only because the tickets' commit, which follows it
  // and waits, flushes it too (docs/decisions/0010-postgres-create-one-statement.md).
  const db = t.app.services.db as PostgresDb;
  assert.deepEqual(await db.queryUnflushed('SHOW synchronous_commit'), [{ synchronous_commit: 'off' }]);
  assert.deepEqual(await db.query('SHOW synchronous_commit'), [{ synchronous_commit: 'on' }]);
});
