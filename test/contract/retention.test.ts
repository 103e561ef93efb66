// Retention on whichever engine this run uses: each kind of record is kept for exactly its period
// after its time column, then the sweep deletes it; what is still in use is never swept. A fake
// clock moves time; nothing sleeps.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import type { Db } from '../../src/core/db.ts';
import { sweepExpiredRecords } from '../../src/store/retention.ts';
import { insertAccount, insertBranch } from '../../src/store/tenancy.ts';
import { insertUser } from '../../src/store/credentials.ts';
import { insertSession } from '../../src/store/sessions.ts';
import { claimSend } from '../../src/store/ring-sends.ts';
import { recordGoogleWalletObject } from '../../src/store/google-wallet-objects.ts';
import { enqueueJob, finishJob, insertEvent } from '../../src/store/outbox.ts';
import { recordKey } from '../../src/store/idempotency.ts';
import { DEFAULT_SETTINGS } from '../../src/domain/branch-settings.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';
import { FakeClock } from '../helpers/clock.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

let store: TestStore;
let db: Db;
const clock = new FakeClock();
const T0 = clock.now();

before(async () => {
  store = await createTestStore();
  db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  await db.migrate();
  await db.write(async (tx) => {
    await insertAccount(tx, { id: 'acct_r', name: 'Café', plan: 'pro', createdAt: T0 });
    await insertBranch(tx, {
      id: 'br_r',
      accountId: 'acct_r',
      name: 'Main',
      timezone: 'UTC',
      defaultQueue: 'A',
      settings: DEFAULT_SETTINGS,
      createdAt: T0,
      updatedAt: T0,
    });
    await insertUser(tx, {
      id: 'usr_r',
      accountId: 'acct_r',
      email: 'owner@retention.test',
      role: 'owner',
      passwordHash: 'x',
      createdAt: T0,
      removedAt: null,
    });
  });
});
after(async () => {
  await db.close();
  await store.drop();
});

const count = async (sql: string, params: unknown[] = []): Promise<number> => Number((await db.query<{ n: number }>(sql, params))[0]!.n);
const sweep = () => sweepExpiredRecords(db, clock.now());

/**
 * Writes a record now, then checks it survives a sweep at exactly `period` later and is gone 1 ms
 * after; `left` counts the records of the kind that the test wrote.
 */
async function keptFor(period: number, write: (now: number) => Promise<unknown>, left: () => Promise<number>): Promise<void> {
  clock.set(T0);
  await write(clock.now());
  assert.equal(await left(), 1, 'written');
  clock.advance(period);
  await sweep();
  assert.equal(await left(), 1, 'kept to the end of its period');
  clock.advance(1);
  await sweep();
  assert.equal(await left(), 0, 'gone right after it');
}

test('send claims (push, SMS) are kept a week after they were claimed', async () => {
  await keptFor(
    7 * DAY,
    (now) => claimSend(db, { ringId: 'rng_s1', channel: 'sms', target: 'phone' }, 'tk_s1', now),
    () => count("SELECT COUNT(*) AS n FROM ring_sends WHERE ticket_id = 'tk_s1'"),
  );
});

test('a sweep reports what it deleted, and a second sweep finds nothing more', async () => {
  clock.set(T0);
  await claimSend(db, { ringId: 'rng_s2', channel: 'push', target: 'psub_1' }, 'tk_s2', clock.now());
  await claimSend(db, { ringId: 'rng_s2', channel: 'sms', target: 'phone' }, 'tk_s2', clock.now());
  clock.advance(7 * DAY + 1);
  assert.equal((await sweep()).ringSends, 2);
  assert.equal((await sweep()).ringSends, 0, 'another node sweeping at once has nothing left to do');
});

test("a ticket's Google Wallet pass object is kept a week after the first save link (its close forgets it sooner)", async () => {
  await keptFor(
    7 * DAY,
    (now) => recordGoogleWalletObject(db, { ticketId: 'tk_g1', branchId: 'br_r', mode: 'live', objectId: '42.pass-g1', createdAt: now }),
    () => count("SELECT COUNT(*) AS n FROM google_wallet_objects WHERE ticket_id = 'tk_g1'"),
  );
});

test('confirmations from pages and boards are kept a week after delivery', async () => {
  await keptFor(
    7 * DAY,
    (now) =>
      db.write((tx) =>
        tx.run("INSERT INTO ring_deliveries (ring_id, channel, target, delivered_at) VALUES ('rng_d1', 'page', 'tk_d1', $1)", [now]),
      ),
    () => count("SELECT COUNT(*) AS n FROM ring_deliveries WHERE ring_id = 'rng_d1'"),
  );
});

test('idempotency keys are kept 24 hours', async () => {
  await keptFor(
    24 * HOUR,
    (now) =>
      db.write((tx) =>
        recordKey(tx, { branchId: 'br_r', mode: 'live', key: 'order-1', fingerprint: 'fp', status: 201, body: '{}', createdAt: now }),
      ),
    () => count("SELECT COUNT(*) AS n FROM idempotency_keys WHERE key = 'order-1'"),
  );
});

test('events are kept 30 days', async () => {
  await keptFor(
    30 * DAY,
    (now) =>
      db.write((tx) =>
        insertEvent(tx, {
          id: 'evt_r1',
          accountId: 'acct_r',
          branchId: 'br_r',
          mode: 'live',
          type: 'ticket.created',
          createdAt: now,
          body: '{}',
        }),
      ),
    () => count("SELECT COUNT(*) AS n FROM events WHERE id = 'evt_r1'"),
  );
});

test('webhook deliveries and their attempt logs are kept 30 days, as long as their events', async () => {
  const left = async () =>
    (await count("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE id = 'wd_r1'")) +
    (await count("SELECT COUNT(*) AS n FROM webhook_attempts WHERE delivery_id = 'wd_r1'"));
  clock.set(T0);
  await db.write(async (tx) => {
    await tx.run(
      `INSERT INTO webhook_deliveries (id, endpoint_id, branch_id, mode, event_id, event_type, status, created_at, updated_at)
       VALUES ('wd_r1', 'we_r1', 'br_r', 'live', 'evt_r2', 'ticket.created', 'succeeded', $1, $1)`,
      [clock.now()],
    );
    await tx.run(
      "INSERT INTO webhook_attempts (delivery_id, seq, attempted_at, status_code, duration_ms) VALUES ('wd_r1', 1, $1, 200, 12)",
      [clock.now()],
    );
  });
  assert.equal(await left(), 2);
  clock.advance(30 * DAY);
  await sweep();
  assert.equal(await left(), 2, 'kept to the end of the 30 days');
  clock.advance(1);
  await sweep();
  assert.equal(await left(), 0, 'the delivery and its attempt log go together');
});

test('finished jobs are kept a week after they finished; unfinished ones are never swept', async () => {
  clock.set(T0);
  const job = (id: string) => ({ id, kind: 'test', key: `retention:${id}`, payload: {}, runAt: T0, createdAt: T0 });
  await db.write(async (tx) => {
    await enqueueJob(tx, job('job_done'));
    await enqueueJob(tx, job('job_waiting'));
  });
  clock.advance(DAY);
  await db.write((tx) => finishJob(tx, 'job_done', clock.now()));
  const left = (id: string) => count('SELECT COUNT(*) AS n FROM jobs WHERE id = $1', [id]);
  clock.advance(7 * DAY);
  await sweep();
  assert.equal(await left('job_done'), 1, 'a week after it finished: kept');
  clock.advance(1);
  await sweep();
  assert.equal(await left('job_done'), 0, 'then gone');
  clock.advance(365 * DAY);
  await sweep();
  assert.equal(await left('job_waiting'), 1, 'a job that has not run yet stays, however old');
});

test('sessions go a day after their end or their revocation; a live one stays', async () => {
  clock.set(T0);
  const session = (id: string, expiresAt: number, revokedAt: number | null) => ({
    id,
    tokenHash: `hash-${id}`,
    userId: 'usr_r',
    accountId: 'acct_r',
    branchId: 'br_r',
    passwordStamp: 'stamp',
    createdAt: T0,
    lastSeenAt: T0,
    expiresAt,
    revokedAt,
  });
  await db.write(async (tx) => {
    await insertSession(tx, session('ses_ended', T0, null));
    await insertSession(tx, session('ses_revoked', T0 + 7 * DAY, T0));
    await insertSession(tx, session('ses_live', T0 + 7 * DAY, null));
  });
  const left = async () => (await db.query<{ id: string }>("SELECT id FROM sessions WHERE user_id = 'usr_r' ORDER BY id")).map((r) => r.id);
  clock.advance(DAY);
  await sweep();
  assert.deepEqual(await left(), ['ses_ended', 'ses_live', 'ses_revoked'], 'a day after: all kept');
  clock.advance(1);
  await sweep();
  assert.deepEqual(await left(), ['ses_live']);
});
