// What a ready costs the store (docs/decisions/0006-ring-delivery.md, "What a ready costs"): the
// transition and the ring are one UPDATE; with nobody to reach the ring completes in that same
// transaction; otherwise the in-line attempt reads nothing back and the second transaction reads
// the ticket once. Counted through a Db that records every statement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { openDb } from '../../src/store/open-db.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { presenceScopes } from '../../src/realtime/presence.ts';
import net from 'node:net';
import { createTestStore, onlyOnPostgres } from '../helpers/store.ts';
import { countingDb, type CountingDb, type Statement } from '../helpers/counting-db.ts';

type Counted = { app: App; db: CountingDb; key: string; close(): Promise<void> };

async function start(): Promise<Counted> {
  const store = await createTestStore();
  // A page that never confirms is waited for this long.
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', PUBLIC_URL: 'http://localhost:3000', RING_DEADLINE_MS: '50', ...store.env });
  const db = countingDb(openDb(config));
  const app = await createApp(config, { db });
  const now = Date.now();
  const key = await db.write(async (tx) => {
    const account = await createAccount(tx, { name: 'Counted', plan: 'pro' }, now);
    const branch = await createBranch(tx, { accountId: account.id, name: 'Counted' }, now);
    return (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key;
  });
  return {
    app,
    db,
    key,
    close: async () => {
      await app.close();
      await store.drop();
    },
  };
}

async function ready(c: Counted, id: string, headers: Record<string, string> = {}): Promise<Statement[]> {
  c.db.log.length = 0;
  const res = await c.app.server.inject({
    method: 'POST',
    url: `/v1/tickets/${id}/ready`,
    headers: { authorization: `Bearer ${c.key}`, ...headers },
  });
  assert.equal(res.statusCode, 200, res.body);
  // The API key's lookup is the auth layer's, not ready's.
  return c.db.log.filter((s) => !s.sql.includes('FROM api_keys'));
}

async function newTicket(c: Counted): Promise<string> {
  const res = await c.app.server.inject({
    method: 'POST',
    url: '/v1/tickets',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    payload: { queue: 'A' },
  });
  return (JSON.parse(res.body) as { id: string }).id;
}

const touching = (log: Statement[], table: RegExp): Statement[] => log.filter((s) => table.test(s.sql));
const show = (log: Statement[]): string => log.map((s) => `[${s.tx}]${s.later ? ' (later)' : ''} ${s.sql.slice(0, 120)}`).join('\n');

/**
 * What both kinds of ready promise: every statement in `transactions` transactions, and no read
 * beside its write. Besides: one insights upsert of the hour's row per transaction (the ready, the
 * ring's completion, one upsert when both are in one transaction; decisions 0025 and 0054), and
 * one of the ring's channel's row (decision 0074), sent with the COMMIT on PostgreSQL, which the
 * limits leave out.
 */
function assertLean(
  c: Counted,
  all: Statement[],
  want: {
    transactions: number;
    ticketStatements: number;
    atMost: { postgres: number; sqlite: number };
    waitedOnPostgres: number;
    rollups: number;
  },
): void {
  const rollups = touching(all, /^INSERT INTO insight_(channel_)?hours\b/);
  assert.equal(rollups.length, want.rollups, `insights upserts:\n${show(all)}`);
  if (c.db.dialect === 'postgres')
    assert.ok(
      rollups.every((s) => s.later === true),
      `insights upserts wait for nothing:\n${show(all)}`,
    );
  const log = all.filter((s) => !rollups.includes(s));
  assert.deepEqual(
    log.filter((s) => s.tx === 0),
    [],
    `outside the transactions:\n${show(log)}`,
  );
  assert.equal(new Set(log.map((s) => s.tx)).size, want.transactions, show(log));
  assert.equal(touching(log, /\btickets\b/).length, want.ticketStatements, `ticket statements:\n${show(log)}`);
  // The branch and push subscriptions are read inside the ticket's UPDATE, not on their own.
  assert.deepEqual(touching(log, /^SELECT .* FROM (branches|push_subscriptions|ring_deliveries|rings)\b/), [], show(log));
  // On PostgreSQL each event's INSERT also reads the endpoints to fan it out to: no statement of its own.
  if (c.db.dialect === 'postgres') assert.deepEqual(touching(log, /^SELECT .* FROM webhook_endpoints\b/), [], show(log));
  const limit = c.db.dialect === 'postgres' ? want.atMost.postgres : want.atMost.sqlite;
  assert.ok(log.length <= limit, `${log.length} statements, expected at most ${limit}:\n${show(log)}`);
  if (c.db.dialect === 'postgres') {
    // The ring and its jobs are read back by nothing in the transaction: they travel with the
    // COMMIT (Tx.later), as BEGIN travels with the first statement, instead of a round trip each.
    const ringInserts = touching(log, /^(WITH ring AS|INSERT INTO rings)/);
    assert.ok(ringInserts.length === 1 && ringInserts[0]!.later === true, show(log));
    const waited = log.filter((s) => s.later !== true).length;
    assert.equal(waited, want.waitedOnPostgres, `statements waited for:\n${show(log)}`);
  }
}

test('a ready with nobody to reach is one transaction: one UPDATE of the ticket, the ring recorded complete with it', async () => {
  const c = await start();
  try {
    await ready(c, await newTicket(c)); // warm caches (keys, VAPID)
    const log = await ready(c, await newTicket(c));
    // On PostgreSQL the UPDATE also reads the webhook endpoints, so both events go with the
    // COMMIT: one statement waited for, then the COMMIT (decision 0054). The ready and the ring
    // it completed are one upsert of the hour's row, and one of the row of the channel it reached.
    assertLean(c, log, { transactions: 1, ticketStatements: 1, atMost: { postgres: 4, sqlite: 7 }, waitedOnPostgres: 1, rollups: 2 });
    assert.equal(touching(log, /^UPDATE tickets .*RETURNING/).length, 1, show(log));
  } finally {
    await c.close();
  }
});

test('a ready with a page open: nothing read between the transactions, the ticket read once after', async () => {
  const c = await start();
  try {
    const warm = await newTicket(c);
    await c.app.live.presence.touch(presenceScopes.page(warm), 'page-1', {}, 60_000);
    await ready(c, warm);
    const id = await newTicket(c);
    await c.app.live.presence.touch(presenceScopes.page(id), 'page-1', {}, 60_000);
    const log = await ready(c, id);
    // Each transaction waits for its first statement only (decision 0054).
    assertLean(c, log, { transactions: 2, ticketStatements: 2, atMost: { postgres: 5, sqlite: 10 }, waitedOnPostgres: 2, rollups: 3 });
  } finally {
    await c.close();
  }
});

test("an Idempotency-Key adds only the key's record, with the answer (and, with a page open, the answer stored after the ring)", async () => {
  const c = await start();
  try {
    await ready(c, await newTicket(c));
    const plain = (await ready(c, await newTicket(c))).filter((s) => s.sql !== 'SAVEPOINT').length;
    const id = await newTicket(c);
    const keyed = (await ready(c, id, { 'idempotency-key': `ready-${id}` })).filter((s) => s.sql !== 'SAVEPOINT');
    assert.equal(touching(keyed, /idempotency_keys/).length, 1, show(keyed));
    assert.equal(keyed.length, plain + 1, show(keyed));

    const paged = await newTicket(c);
    await c.app.live.presence.touch(presenceScopes.page(paged), 'page-1', {}, 60_000);
    const twoPhase = (await ready(c, paged, { 'idempotency-key': `ready-${paged}` })).filter((s) => s.sql !== 'SAVEPOINT');
    assert.equal(touching(twoPhase, /idempotency_keys/).length, 2, show(twoPhase));
  } finally {
    await c.close();
  }
});

test(
  'on PostgreSQL a ready with nobody to reach is two socket writes: BEGIN with the UPDATE, the rest with the COMMIT',
  onlyOnPostgres,
  async () => {
    // pg writes each statement on its own; statements sent without waiting are held until the
    // next one that is waited for (decision 0054). Counted at the socket, to PostgreSQL only.
    const c = await start();
    const port = Number(new URL(String(process.env.TEST_DATABASE_URL)).port || 5432);
    const socket = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
    const original = { _write: socket._write, _writev: socket._writev };
    let writes = 0;
    try {
      await ready(c, await newTicket(c));
      const id = await newTicket(c);
      for (const name of ['_write', '_writev'] as const) {
        socket[name] = function (this: net.Socket, ...args: unknown[]) {
          if (this.remotePort === port) writes += 1;
          return original[name].apply(this, args);
        };
      }
      await ready(c, id);
    } finally {
      Object.assign(socket, original);
      await c.close();
    }
    assert.equal(writes, 2);
  },
);
