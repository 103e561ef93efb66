// readybell behind PgBouncer in transaction mode (issue 24, decision 0057): what a hosted
// PostgreSQL usually puts in front of its primary. Each transaction may run on another server
// session, so nothing may rely on a session: no named statement the pooler loses, no session
// setting, no session advisory lock. The nodes reach the test database through a PgBouncer this
// file starts; the database itself is created and dropped through TEST_DATABASE_URL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { onlyOnPostgres, TEST_DATABASE_URL } from '../helpers/store.ts';
import { pgbouncerMissing, startPgbouncer, type Pooler } from '../helpers/pgbouncer.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint } from '../helpers/webhooks.ts';
import { openPage } from '../helpers/live.ts';
import { startSecondNode } from '../helpers/tickets.ts';
import { eventually } from '../helpers/eventually.ts';
import { probeStatementNames } from '../../src/store/postgres/pooler-probe.ts';
import type { PostgresDb } from '../../src/store/postgres/postgres-db.ts';

const runs = onlyOnPostgres.skip !== false ? onlyOnPostgres : { skip: pgbouncerMissing ?? false };

let pooler: Pooler | null = null;
let t: TestApp | null = null;
let receiver: WebhookReceiver | null = null;

before(async () => {
  if (runs.skip !== false) return;
  pooler = await startPgbouncer({ poolMode: 'transaction', poolSize: 3 });
  receiver = await new WebhookReceiver().start();
  t = await startTestApp({ workers: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, databaseUrl: pooler.via });
});
after(async () => {
  try {
    await receiver?.close();
    await t?.close();
  } finally {
    await pooler?.stop();
  }
});

test(
  'the start finds that the pooler loses named statements between transactions; a direct connection and session mode keep them',
  runs,
  async () => {
    const direct = await probeStatementNames(TEST_DATABASE_URL!, 'readybell-test');
    assert.equal(direct, 'kept');
    const pooled = await probeStatementNames(pooler!.via(TEST_DATABASE_URL!), 'readybell-test');
    // PgBouncer before 1.21 (Debian 12's 1.18) loses them; later ones carry them when max_prepared_statements > 0.
    assert.notEqual(pooled, 'kept', 'the pooler in transaction mode was taken for a direct connection');
    assert.equal((t!.app.services.db as PostgresDb).statementNames(), pooled === 'lost' ? 'unnamed' : 'named');
    // In session mode a client keeps its server session: names are kept, as on a direct connection.
    const session = await startPgbouncer({ poolMode: 'session', poolSize: 3 });
    try {
      assert.equal(await probeStatementNames(session.via(TEST_DATABASE_URL!), 'readybell-test'), 'kept');
    } finally {
      await session.stop();
    }
  },
);

test('behind a pooler in statement mode a node refuses to start, naming the mode to use', runs, async () => {
  const statement = await startPgbouncer({ poolMode: 'statement', poolSize: 3 });
  try {
    await assert.rejects(
      probeStatementNames(statement.via(TEST_DATABASE_URL!), 'readybell-test'),
      /statement mode .*pool_mode = transaction/,
    );
  } finally {
    await statement.stop();
  }
});

test('through the pooler: creates keyed and unkeyed, a ready rings the open page, the list, the webhooks', runs, async () => {
  const app = t!;
  const e = await createEndpoint(app, { url: `${receiver!.url}/hook` });
  receiver!.secrets = [e.secret];

  // Many at once: the creates are numbered in batches on connections of their own (SET LOCAL there).
  const made = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      app.request('POST', '/v1/tickets', { body: {}, headers: i % 2 === 0 ? { 'idempotency-key': `pooled-${i}` } : {} }),
    ),
  );
  assert.deepEqual(
    made.map((r) => r.status),
    made.map(() => 201),
    made.find((r) => r.status !== 201)?.text,
  );
  const numbers = new Set(made.map((r) => r.body.display_number));
  assert.equal(numbers.size, 24, 'every ticket got its own number');
  const again = await app.request('POST', '/v1/tickets', { body: {}, headers: { 'idempotency-key': 'pooled-0' } });
  assert.equal(again.status, 201);
  assert.equal(again.body.id, made[0]!.body.id, 'a repeated key answers the ticket it made');

  const ticket = made[1]!.body;
  const page = await openPage(app, ticket.url);
  try {
    const ready = await app.request('POST', `/v1/tickets/${ticket.id}/ready`);
    assert.equal(ready.status, 200, ready.text);
    assert.equal((await page.next('ring')).data.reason, 'ready');
    assert.equal(ready.body.rang, true, 'the page confirmed the ring');
  } finally {
    page.close();
  }

  const list = await app.request('GET', '/v1/tickets?limit=100');
  assert.equal(list.status, 200, list.text);
  const listed = new Set(list.body.data.map((x: { id: string }) => x.id));
  assert.deepEqual(
    made.filter((r) => !listed.has(r.body.id)),
    [],
  );
  assert.equal(list.body.data.find((x: { id: string }) => x.id === ticket.id).status, 'ready');

  // Claimed by the job workers through the pooler: one delivery per create, one for the ready.
  const types = (): Array<string | undefined> => receiver!.deliveries.map((d) => d.event?.type);
  await eventually(
    () => types().filter((x) => x === 'ticket.created').length === 24 && types().includes('ticket.ready'),
    'every created and the ready delivered',
    20_000,
  );
  assert.ok(receiver!.deliveries.every((d) => d.verifiedBy.length === 1));
});

test('a second node starts on the same database through the pooler, and both serve the same tickets', runs, async () => {
  const app = t!;
  // Its start migrates too: the migration lock is a transaction lock, so no lock is left behind
  // on a server session the pooler has handed on (a session lock's unlock may reach another).
  const second = await startSecondNode(app);
  try {
    const on2 = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(second.url + path, {
        method,
        headers: { authorization: `Bearer ${app.tenant.testKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const made = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? on2('POST', '/v1/tickets', {}) : app.request('POST', '/v1/tickets', { body: {} }))),
    );
    assert.deepEqual(
      made.map((r) => r.status),
      made.map(() => 201),
    );
    const id = made[0]!.body.id;
    assert.equal((await on2('POST', `/v1/tickets/${id}/ready`)).status, 200);
    await eventually(async () => (await app.request('GET', `/v1/tickets/${id}`)).body.status === 'ready', 'the first node sees the ready');
  } finally {
    await second.stop();
  }
  // And a third start finds the migration lock free (a leaked session lock would hold it forever).
  const third = await startSecondNode(app);
  await third.stop();
});
