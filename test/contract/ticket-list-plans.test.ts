// Every list filter is answered from an index range that bounds the rows read, on whichever
// engine this run uses, so its cost does not grow with the branch's history (issue #13, item 16;
// docs/decisions/0021-lists-bounded-by-index.md). The plans are asked of the engine for the very
// statements the store sends, on two branches of mostly closed tickets with PostgreSQL's
// statistics up to date; on PostgreSQL both the plan for the values and the generic plan a
// prepared statement switches to after five runs are checked.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import type { Db, Queryable, Row } from '../../src/core/db.ts';
import { insertQueue } from '../../src/store/tenancy.ts';
import { listTickets, type TicketFilter } from '../../src/store/tickets.ts';
import { openTickets, waitingIds } from '../../src/store/live-queries.ts';
import { createAccount, createBranch } from '../../src/actions/provision.ts';
import { TICKET_STATUSES } from '../../src/domain/ticket-state.ts';
import type { TicketStatus } from '../../src/core/ticket.ts';
import { createTestStore, type TestStore } from '../helpers/store.ts';
import { fillHistory, type History } from '../helpers/ticket-history.ts';

const TICKETS = 30_000;
const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const HOUR = 3600_000;

let store: TestStore;
let db: Db;
let h: History;
let cursor: string;
before(async () => {
  store = await createTestStore();
  db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
  await db.migrate();
  const branches: string[] = [];
  for (const name of ['listed', 'neighbour']) {
    branches.push(
      await db.write(async (tx) => {
        const account = await createAccount(tx, { name, plan: 'pro' }, NOW);
        const branch = await createBranch(tx, { accountId: account.id, name }, NOW);
        await insertQueue(tx, { branchId: branch.id, name: 'B', createdAt: NOW });
        return branch.id;
      }),
    );
  }
  // A neighbour with a history of its own, so that no plan can pass by reading every branch.
  for (const [i, branchId] of branches.entries()) {
    const history: History = { branchId, mode: 'test', newestAt: NOW, everyMs: 60_000, open: 20, tag: i };
    await fillHistory(db, history, 0, TICKETS);
    if (i === 0) h = history;
  }
  cursor = (await listTickets(db, h.branchId, h.mode, { externalRef: 'order-5000', limit: 1 })).data[0]!.id;
});
after(async () => {
  await db.close();
  await store.drop();
});

type Sent = { sql: string; params: readonly unknown[] };

/** The one statement `read` sends, captured instead of run. */
async function statementOf(read: (q: Queryable) => Promise<unknown>): Promise<Sent> {
  const sent: Sent[] = [];
  const capture: Queryable = {
    dialect: db.dialect,
    async query<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      sent.push({ sql, params });
      return [];
    },
    run: () => Promise.reject(new Error('a read must not write')),
  };
  await read(capture);
  assert.equal(sent.length, 1);
  return sent[0]!;
}

/** An index scan of tickets: its index and the conditions that bound it. */
type Scan = { index: string; bound: string };
type Plan = { scans: Scan[]; problems: string[] };

async function sqlitePlan(s: Sent): Promise<Plan> {
  const rows = await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.sql}`, s.params);
  const scans: Scan[] = [];
  const problems: string[] = [];
  for (const { detail } of rows) {
    const m = /^SEARCH tickets USING (?:COVERING )?INDEX (\w+) \((.*)\)$/.exec(detail);
    if (m !== null) scans.push({ index: m[1]!, bound: m[2]! });
    else if (/TEMP B-TREE|^SCAN tickets|AUTOMATIC/.test(detail)) problems.push(detail);
  }
  return { scans, problems };
}

type PgNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Index Cond'?: string; Plans?: PgNode[] };

function pgPlanOf(root: PgNode): Plan {
  const scans: Scan[] = [];
  const problems: string[] = [];
  const walk = (n: PgNode): void => {
    if (n['Relation Name'] === 'tickets') {
      if (n['Node Type'] === 'Index Scan' || n['Node Type'] === 'Index Only Scan')
        scans.push({ index: n['Index Name']!, bound: n['Index Cond'] ?? '' });
      else problems.push(`${n['Node Type']} on tickets`);
    }
    if (n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort') problems.push(n['Node Type']);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(root);
  return { scans, problems };
}

async function pgPlans(s: Sent): Promise<Record<'for the values' | 'generic', Plan>> {
  const custom = await db.query<{ 'QUERY PLAN': Array<{ Plan: PgNode }> }>(`EXPLAIN (FORMAT JSON) ${s.sql}`, s.params);
  const c = new pg.Client({ connectionString: store.env.DATABASE_URL });
  await c.connect();
  try {
    // One transaction, the statement deallocated in it: through a pooler in transaction mode
    // (test/contract/pooler.test.ts) the next one may run on another server session.
    await c.query('BEGIN');
    await c.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await c.query(`PREPARE listed AS ${s.sql}`);
    const args = s.params.map((v) => (typeof v === 'number' ? String(v) : c.escapeLiteral(String(v))));
    const generic = await c.query<{ 'QUERY PLAN': Array<{ Plan: PgNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE listed(${args.join(', ')})`);
    await c.query('DEALLOCATE listed');
    await c.query('COMMIT');
    return { 'for the values': pgPlanOf(custom[0]!['QUERY PLAN'][0]!.Plan), generic: pgPlanOf(generic.rows[0]!['QUERY PLAN'][0]!.Plan) };
  } finally {
    await c.end();
  }
}

/**
 * Every scan of the statement reads `index`, bounded by the branch, the mode, every column in
 * `bound` and (with `range`) the id range; one scan per status when `arms` is given. Nothing is
 * sorted: a sort under a LIMIT reads every row of its ranges first. Only a read that returns
 * every row of its ranges anyway (`whole`) may sort them.
 */
async function assertBounded(
  read: (q: Queryable) => Promise<unknown>,
  index: string,
  bound: string[],
  opts: { range?: boolean; arms?: number; whole?: boolean } = {},
): Promise<void> {
  const s = await statementOf(read);
  const plans = db.dialect === 'postgres' ? await pgPlans(s) : { '': await sqlitePlan(s) };
  for (const [kind, plan] of Object.entries(plans)) {
    const where = `${kind} plan of ${s.sql}`;
    if (process.env.SHOW_PLANS) console.log(kind, JSON.stringify(plan), s.sql.replace(/SELECT id, branch_id.*? FROM/g, 'SELECT … FROM'));
    const problems = opts.whole ? plan.problems.filter((p) => !/Sort|TEMP B-TREE/.test(p)) : plan.problems;
    assert.deepEqual(problems, [], `no full scan or sort of tickets in the ${where}`);
    assert.equal(plan.scans.length, opts.arms ?? 1, `one index range per status in the ${where}`);
    for (const scan of plan.scans) {
      assert.equal(scan.index, index, where);
      for (const col of ['branch_id', 'mode', ...bound])
        assert.match(scan.bound, new RegExp(`\\b${col} ?=`), `${col} bounds the scan in the ${where}`);
      if (opts.range) assert.match(scan.bound, /\bid ?[<>]/, `the id range bounds the scan in the ${where}`);
    }
  }
}

const list = (f: Omit<TicketFilter, 'limit'> & { limit?: number }) => (q: Queryable) =>
  listTickets(q, h.branchId, h.mode, { limit: 20, ...f });
const at = (msAgo: number) => NOW - msAgo;

test('the newest tickets, and the page after a cursor, are read from (branch, mode, id)', async () => {
  await assertBounded(list({}), 'tickets_list', []);
  await assertBounded(list({ startingAfter: cursor }), 'tickets_list', [], { range: true });
});

test('each status alone is one range of (branch, mode, status, id)', async () => {
  for (const s of TICKET_STATUSES) await assertBounded(list({ statuses: [s] }), 'tickets_status', ['status']);
  await assertBounded(list({ statuses: ['collected'], startingAfter: cursor }), 'tickets_status', ['status'], { range: true });
});

test('several statuses are one range per status, merged: the open ones, the closed ones, all of them', async () => {
  const sets: TicketStatus[][] = [
    ['created', 'ready'],
    ['collected', 'cancelled', 'expired'],
    [...TICKET_STATUSES],
    ['ready', 'created', 'ready'],
  ];
  for (const statuses of sets) {
    await assertBounded(list({ statuses, limit: 100 }), 'tickets_status', ['status'], { arms: new Set(statuses).size });
  }
  await assertBounded(list({ statuses: ['created', 'ready'], startingAfter: cursor }), 'tickets_status', ['status'], {
    range: true,
    arms: 2,
  });
});

test('a queue, with or without statuses, is read from (branch, mode, queue, status, id)', async () => {
  await assertBounded(list({ queue: 'B' }), 'tickets_queue_status', ['queue', 'status'], { arms: TICKET_STATUSES.length });
  await assertBounded(list({ queue: 'B', statuses: ['ready'] }), 'tickets_queue_status', ['queue', 'status']);
  await assertBounded(list({ queue: 'A', statuses: ['created', 'ready'], limit: 100 }), 'tickets_queue_status', ['queue', 'status'], {
    arms: 2,
  });
  await assertBounded(list({ queue: 'B', startingAfter: cursor }), 'tickets_queue_status', ['queue', 'status'], {
    range: true,
    arms: TICKET_STATUSES.length,
  });
});

test('an external_ref is read from its own index, whatever else is asked', async () => {
  await assertBounded(list({ externalRef: 'order-5000' }), 'tickets_external_ref', ['external_ref']);
  await assertBounded(list({ externalRef: 'order-5000', queue: 'A', statuses: ['collected', 'cancelled'] }), 'tickets_external_ref', [
    'external_ref',
  ]);
});

test('the created range is a range of ids', async () => {
  await assertBounded(list({ createdAfter: at(HOUR / 2), limit: 100 }), 'tickets_list', [], { range: true });
  await assertBounded(list({ createdAfter: at(48 * HOUR), createdBefore: at(24 * HOUR) }), 'tickets_list', [], { range: true });
  await assertBounded(list({ createdBefore: at(24 * HOUR), startingAfter: cursor }), 'tickets_list', [], { range: true });
  await assertBounded(list({ createdAfter: at(HOUR), statuses: ['created', 'ready'] }), 'tickets_status', ['status'], {
    range: true,
    arms: 2,
  });
});

test("the live pages' reads: a board's open tickets and a queue's waiting line", async () => {
  await assertBounded((q) => openTickets(q, h.branchId, h.mode), 'tickets_status', ['status'], { arms: 2, whole: true });
  await assertBounded((q) => waitingIds(q, h.branchId, h.mode, 'A'), 'tickets_queue_status', ['queue', 'status'], { whole: true });
});

test('the merged reads answer what filtering the whole history would, page after page', async () => {
  const all = (
    await db.query<{ id: string; queue: string; status: string; external_ref: string; created_at: number }>(
      'SELECT id, queue, status, external_ref, created_at FROM tickets WHERE branch_id = $1 AND mode = $2',
      [h.branchId, h.mode],
    )
  )
    .map((r) => ({ ...r, created_at: Number(r.created_at) }))
    .sort((a, b) => (a.id < b.id ? 1 : -1));
  assert.equal(all.length, TICKETS);
  const filters: Array<Omit<TicketFilter, 'limit' | 'startingAfter'>> = [
    { statuses: ['created', 'ready'] },
    { statuses: ['expired', 'cancelled', 'expired'] },
    { queue: 'B' },
    { queue: 'B', statuses: ['ready', 'cancelled'] },
    // Both ends fall on a ticket's created_at, and the range leaves both of those tickets out.
    { createdAfter: at(50 * HOUR), createdBefore: at(40 * HOUR), statuses: ['collected', 'expired'] },
    { externalRef: 'order-41', queue: 'A', statuses: ['collected'] },
  ];
  for (const f of filters) {
    const expected = all.filter(
      (t) =>
        (f.statuses === undefined || f.statuses.includes(t.status as TicketStatus)) &&
        (f.queue === undefined || t.queue === f.queue) &&
        (f.externalRef === undefined || t.external_ref === f.externalRef) &&
        (f.createdAfter === undefined || t.created_at > f.createdAfter) &&
        (f.createdBefore === undefined || t.created_at < f.createdBefore),
    );
    const got: string[] = [];
    let startingAfter: string | undefined;
    for (let page = 1; ; page++) {
      const res = await listTickets(db, h.branchId, h.mode, { ...f, startingAfter, limit: 61 });
      got.push(...res.data.map((t) => t.id));
      assert.equal(res.hasMore, got.length < expected.length, `has_more of page ${page} of ${JSON.stringify(f)}`);
      if (!res.hasMore) break;
      startingAfter = got.at(-1);
    }
    assert.ok(expected.length > 0, JSON.stringify(f));
    assert.deepEqual(
      got,
      expected.map((t) => t.id),
      JSON.stringify(f),
    );
  }
});
