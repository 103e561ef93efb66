// A ticket found by its id is found through the primary key, whatever PostgreSQL knows about the
// table (decision 0054). On a tickets table not analysed yet (a new deployment's first busy hour)
// the plain `WHERE id AND branch_id AND mode` was planned through tickets_queue_status with its
// queue unconstrained, reading the branch's whole index for every ready and GET.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { openDb } from '../../src/store/open-db.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { createTestStore, onlyOnPostgres } from '../helpers/store.ts';
import { countingDb, type Statement } from '../helpers/counting-db.ts';

const TICKETS = 5_000;

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
const scansOfTickets = (n: PlanNode): string[] => [
  // The UPDATE's own node names the table it writes; the scan under it is the one that reads.
  ...(n['Relation Name'] === 'tickets' && n['Node Type'] !== 'ModifyTable' ? [n['Index Name'] ?? n['Node Type']] : []),
  ...(n.Plans ?? []).flatMap(scansOfTickets),
];

test('a ready and a GET find the ticket through its primary key on a tickets table never analysed', onlyOnPostgres, async () => {
  const store = await createTestStore();
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', PUBLIC_URL: 'http://localhost:3000', ...store.env });
  const db = countingDb(openDb(config));
  const app = await createApp(config, { db });
  const client = new pg.Client({ connectionString: store.env.DATABASE_URL });
  try {
    await client.connect();
    // What a fresh deployment has: no statistics, and autovacuum not yet round to it.
    await client.query('ALTER TABLE tickets SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)');
    const now = Date.now();
    const { branchId, key } = await db.write(async (tx) => {
      const account = await createAccount(tx, { name: 'Plans', plan: 'pro' }, now);
      const branch = await createBranch(tx, { accountId: account.id, name: 'Plans' }, now);
      return { branchId: branch.id, key: (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key };
    });
    await client.query(
      `INSERT INTO tickets (id, branch_id, mode, queue, number, display_number, status, token, external_ref, created_at, expires_at, updated_at)
       SELECT 'tk_01m8' || lpad(g::text, 22, '0'), $1, 'test', 'A', g, 'A-' || g, 'created', 'plan-token-' || g, 'plans', $2, $3, $2
       FROM generate_series(1, ${TICKETS}) g`,
      [branchId, now, now + 3_600_000],
    );
    const stats = await client.query("SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE relname = 'tickets'");
    assert.deepEqual(stats.rows, [{ last_analyze: null, last_autoanalyze: null }]);

    const id = `tk_01m8${String(TICKETS / 2).padStart(22, '0')}`;
    const auth = { authorization: `Bearer ${key}` };
    db.log.length = 0;
    const got = await app.server.inject({ method: 'GET', url: `/v1/tickets/${id}`, headers: auth });
    assert.equal(got.statusCode, 200, got.body);
    const ready = await app.server.inject({ method: 'POST', url: `/v1/tickets/${id}/ready`, headers: auth });
    assert.equal(ready.statusCode, 200, ready.body);
    const byId: Statement[] = db.log.filter(
      (s) => /^(SELECT|UPDATE tickets|WITH)/.test(s.sql) && /\bFROM tickets\b|^UPDATE tickets/.test(s.sql),
    );
    assert.ok(byId.length >= 2, `the GET's SELECT and the ready's UPDATE: ${byId.map((s) => s.sql.slice(0, 80)).join('\n')}`);
    for (const s of byId) {
      const plan = await client.query({ text: `EXPLAIN (FORMAT JSON) ${s.sql}`, values: [...(s.params ?? [])] });
      const scans = scansOfTickets((plan.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
      assert.deepEqual(scans, ['tickets_pkey'], `${s.sql.slice(0, 100)}…`);
    }
  } finally {
    await client.end().catch(() => {});
    await app.close();
    await store.drop();
  }
});
