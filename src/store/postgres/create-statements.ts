// The two statements that commit any number of creates on PostgreSQL, each outside an explicit
// transaction (a single statement is atomic by itself):
//
// 1. Numbering: the queues' day counters move on by the count of creates each gets, in one
//    upsert that commits without waiting for the WAL flush (PostgresDb.queryUnflushed). The
//    counter row is locked only for that statement, not through a flush, so concurrent creates of
//    one queue (from several nodes too) no longer wait for each other's fsync. The same statement
//    answers what the creates' rows depend on: whether the branch is still as the node
//    remembered it, whether the queue exists, whether a key is already taken (a key older than
//    24 hours is forgotten here), and the branches' webhook endpoints.
// 2. Rows: every row of every create (createTicket describes them), with each key's record and
//    answer, committed durably. That commit flushes the WAL up to itself, so the counters'
//    earlier commit is on disk before any ticket numbered from it is acknowledged; a crash before
//    it loses both, and nobody was told. This statement knows two tables by name: the ticket's,
//    whose insert arbitrates its number on the open-number index (a number held by an open
//    ticket writes nothing of its create, which takes the next number), and the key's, whose
//    insert fails the statement when another node has just recorded the same key (each create
//    is then tried again alone, and that one finds its key taken).
//
// docs/decisions/0010-one-create-path.md has the measurements behind this shape.
import type { RowWrite } from '../../core/events.ts';
import { identifier, mergeClause, shapeOf } from '../rows.ts';
import { IDEMPOTENCY_TTL_MS } from '../idempotency.ts';
import { parseEnabledEvents } from '../webhook-endpoints.ts';
import type { EventSubscriber } from '../../core/events.ts';
import type { Queryable, Row } from '../../core/db.ts';

/**
 * What the statements need of the PostgreSQL store (PostgresDb, which commits its creates through
 * this folder): statements that wait for the WAL flush, and ones that do not (queryUnflushed).
 */
export type StatementsDb = Queryable & {
  queryUnflushed<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  onGroupCommit?: (writes: number) => void;
};

/** A create as the numbering statement sees it: where its number comes from, and what the node assumed. */
export type NumberingInput = {
  branchId: string;
  mode: string;
  queue: string;
  day: string;
  /** The branch's timezone and raw settings text as the node last read them. */
  timezone: string;
  settings: string;
  /** False when `queue` is the branch's default queue as the node last read it: the statement checks it still is. */
  queueGiven: boolean;
  key: string | null;
  at: number;
};

export type Numbered =
  | { kind: 'numbered'; number: number }
  /** The node's copy of the branch is stale: here is the row. Nothing was taken. */
  | { kind: 'stale'; branch: { timezone: string; settings: string; defaultQueue: string } }
  | { kind: 'no-branch' }
  | { kind: 'unknown-queue' }
  | { kind: 'key-taken' };

// The counters of every (branch, mode, queue, day) among the creates, each moved on by its count,
// in key order (so two statements never wait for each other in a cycle). Each create's number is
// its place among its counter's creates. Every lookup is a LATERAL ... LIMIT 1 on a primary key,
// one probe per create, whatever the planner knows of the tables (nothing, with autovacuum off):
// as EXISTS subqueries or joins it may hash or scan the whole table instead (measured: every
// open ticket of the service read by each statement).
const NUMBERING_SQL = `WITH x AS (
  SELECT * FROM json_to_recordset($1::json) AS x(ord integer, branch_id text, mode text, queue text, day text, timezone text, settings text, queue_given boolean, key text, at bigint)
),
s AS (
  SELECT x.*, br.id IS NOT NULL AS branch_found,
    coalesce(br.timezone = x.timezone AND br.settings = x.settings AND (x.queue_given OR br.default_queue = x.queue), false) AS fresh,
    q.found IS NOT NULL AS queue_found, coalesce(k.live, false) AS key_taken, CASE WHEN NOT k.live THEN k.id END AS expired_key,
    br.timezone AS b_timezone, br.settings AS b_settings, br.default_queue AS b_default_queue
  FROM x
  LEFT JOIN LATERAL (SELECT br.id, br.timezone, br.settings, br.default_queue FROM branches br WHERE br.id = x.branch_id LIMIT 1) br ON true
  LEFT JOIN LATERAL (SELECT true AS found FROM queues q WHERE q.branch_id = x.branch_id AND q.name = x.queue LIMIT 1) q ON true
  LEFT JOIN LATERAL (
    SELECT k.ctid AS id, k.created_at >= x.at - ${IDEMPOTENCY_TTL_MS} AS live FROM idempotency_keys k
    WHERE x.key IS NOT NULL AND k.branch_id = x.branch_id AND k.mode = x.mode AND k.key = x.key LIMIT 1
  ) k ON true
),
-- A key older than 24 hours is forgotten, so that the key's insert in statement 2 finds it free.
-- By the row's address: a DELETE joined to the creates may be planned as a scan of every key.
forgotten AS (
  DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(SELECT expired_key FROM s WHERE expired_key IS NOT NULL))
),
go AS (
  SELECT * FROM s WHERE fresh AND queue_found AND NOT key_taken
),
c AS (
  INSERT INTO queue_counters (branch_id, mode, queue, day, last_number)
  SELECT branch_id, mode, queue, day, count(*) FROM go GROUP BY branch_id, mode, queue, day ORDER BY branch_id, mode, queue, day
  ON CONFLICT (branch_id, mode, queue, day) DO UPDATE SET last_number = queue_counters.last_number + EXCLUDED.last_number
  RETURNING branch_id, mode, queue, day, last_number
),
n AS (
  SELECT go.ord, go.branch_id, go.mode, go.queue, c.last_number - count(*) OVER w + row_number() OVER (w ORDER BY go.ord) AS number
  FROM go JOIN c ON c.branch_id = go.branch_id AND c.mode = go.mode AND c.queue = go.queue AND c.day = go.day
  WINDOW w AS (PARTITION BY go.branch_id, go.mode, go.queue, go.day)
),
subs AS (
  SELECT g.branch_id, g.mode, e.list
  FROM (SELECT DISTINCT branch_id, mode FROM go) g,
  LATERAL (
    SELECT json_agg(json_build_array(e.id, e.enabled_events, e.failing_since IS NOT NULL) ORDER BY e.id) AS list FROM webhook_endpoints e
    WHERE e.branch_id = g.branch_id AND e.mode = g.mode AND e.disabled = 0
  ) e
),
first AS (
  SELECT s.*, row_number() OVER (PARTITION BY s.branch_id, s.mode ORDER BY s.ord) = 1 AS first_of_scope FROM s
)
SELECT s.ord, s.branch_found, s.fresh, s.queue_found, s.key_taken, n.number,
  -- What the node needs to refresh its copy; nothing to parse when the copy was fresh.
  CASE WHEN s.fresh THEN NULL ELSE s.b_timezone END AS b_timezone,
  CASE WHEN s.fresh THEN NULL ELSE s.b_settings END AS b_settings,
  CASE WHEN s.fresh THEN NULL ELSE s.b_default_queue END AS b_default_queue,
  -- Each branch's endpoints once, on its first create.
  CASE WHEN s.first_of_scope THEN subs.list END AS subscribers
FROM first s
LEFT JOIN n ON n.ord = s.ord
LEFT JOIN subs ON subs.branch_id = s.branch_id AND subs.mode = s.mode
ORDER BY s.ord`;

type NumberingRow = {
  ord: number;
  branch_found: boolean;
  fresh: boolean;
  queue_found: boolean;
  key_taken: boolean;
  number: number | null;
  b_timezone: string | null;
  b_settings: string | null;
  b_default_queue: string | null;
  subscribers: Array<[string, string, boolean]> | null;
};

const scope = (branchId: string, mode: string): string => `${branchId}\u0000${mode}`;

/**
 * Numbers the creates (statement 1): one result per input, in order, and the enabled webhook
 * endpoints of each branch and mode among them, by `scope`.
 */
export async function numberCreates(
  db: StatementsDb,
  items: readonly NumberingInput[],
): Promise<{ results: Numbered[]; subscribers: Map<string, EventSubscriber[]> }> {
  const input = JSON.stringify(
    items.map((it, i) => ({
      ord: i,
      branch_id: it.branchId,
      mode: it.mode,
      queue: it.queue,
      day: it.day,
      timezone: it.timezone,
      settings: it.settings,
      queue_given: it.queueGiven,
      key: it.key,
      at: it.at,
    })),
  );
  const rows = await db.queryUnflushed<NumberingRow>(NUMBERING_SQL, [input]);
  const subscribers = new Map<string, EventSubscriber[]>();
  const results = rows.map((r): Numbered => {
    const it = items[r.ord]!;
    if (r.subscribers !== null) {
      subscribers.set(
        scope(it.branchId, it.mode),
        r.subscribers.map(([id, events, failing]) => ({ id, enabledEvents: parseEnabledEvents(events), failing })),
      );
    }
    if (!r.branch_found) return { kind: 'no-branch' };
    if (!r.fresh) return { kind: 'stale', branch: { timezone: r.b_timezone!, settings: r.b_settings!, defaultQueue: r.b_default_queue! } };
    if (r.key_taken) return { kind: 'key-taken' };
    if (!r.queue_found) return { kind: 'unknown-queue' };
    return { kind: 'numbered', number: Number(r.number) };
  });
  return { results, subscribers };
}

export const subscribersOf = (all: Map<string, EventSubscriber[]>, branchId: string, mode: string): EventSubscriber[] =>
  all.get(scope(branchId, mode)) ?? [];

/**
 * The INSERT of every row of one shape, read from the JSON array `param`, leaving out the creates
 * in `held`. Merged rows are summed (or maxed) per key first, and upserted in key order, so two
 * statements never wait for each other in a cycle on their rows.
 */
function insertFromJson(first: RowWrite, param: string): string {
  const table = identifier(first.table);
  const columns = Object.keys(first.values).map(identifier);
  const from = `FROM json_array_elements(${param}::json) x, LATERAL json_populate_record(NULL::${table}, x) r
  WHERE (x->>'${ORD}')::integer NOT IN (SELECT ord FROM held)`;
  const { merge } = first;
  if (merge === undefined)
    return `INSERT INTO ${table} (${columns.join(', ')})\n  SELECT ${columns.map((c) => `r.${c}`).join(', ')} ${from}`;
  const key = merge.key.map((c) => `r.${identifier(c)}`).join(', ');
  const merged = columns.map((c) => (merge.key.includes(c) ? `r.${c}` : merge.columns[c] === 'add' ? `sum(r.${c})` : `max(r.${c})`));
  return `INSERT INTO ${table} (${columns.join(', ')})\n  SELECT ${merged.join(', ')} ${from}\n  GROUP BY ${key} ORDER BY ${key}\n ${mergeClause(first, 'postgres')}`;
}

/** A create's rows for statement 2 (its ticket's among them), and its key's record (with the answer) when it has one. */
export type CreateRows = { rows: readonly RowWrite[]; key: RowWrite | null };

// Which create a row belongs to, carried beside its columns in the JSON; json_populate_record
// ignores keys that are not columns of the table.
const ORD = '#';

/** The table whose row holds a create's number, and the index that arbitrates it. */
const TICKETS = 'tickets';
const OPEN_NUMBER = 'ON CONFLICT (branch_id, mode, queue, number) WHERE closed_at IS NULL DO NOTHING';

/**
 * Inserts every create's rows (statement 2); answers, by index, the creates that wrote nothing
 * because an open ticket holds their number. Rows of one table and shape go in one INSERT; each
 * reads its rows from a JSON array of objects, converted to the table's column types by the
 * server. The tickets go first: the rest of a create is written only if its ticket was.
 */
export async function insertCreates(db: StatementsDb, creates: readonly CreateRows[]): Promise<Set<number>> {
  const tickets: Array<Record<string, unknown>> = [];
  let ticketColumns: string[] | null = null;
  const shapes = new Map<string, { first: RowWrite; rows: Array<Record<string, unknown>> }>();
  const add = (row: RowWrite, ord: number): void => {
    const shape = shapeOf(row);
    let s = shapes.get(shape);
    if (s === undefined) shapes.set(shape, (s = { first: row, rows: [] }));
    s.rows.push({ ...row.values, [ORD]: ord });
  };
  creates.forEach((c, ord) => {
    if (c.key !== null) add(c.key, ord);
    for (const row of c.rows) {
      if (row.table !== TICKETS) {
        add(row, ord);
        continue;
      }
      const columns = Object.keys(row.values);
      if (ticketColumns !== null && ticketColumns.join() !== columns.join()) throw new Error('tickets of one batch have different columns');
      ticketColumns = columns;
      tickets.push({ ...row.values, [ORD]: ord });
    }
  });
  if (ticketColumns === null) throw new Error('a create without its ticket');
  const columns = (ticketColumns as string[]).map(identifier);
  const params = [JSON.stringify(tickets)];
  const ctes = [
    `t AS (
  INSERT INTO ${TICKETS} (${columns.join(', ')})
  SELECT ${columns.map((c) => `r.${c}`).join(', ')} FROM json_array_elements($1::json) x, LATERAL json_populate_record(NULL::${TICKETS}, x) r
  ORDER BY r.branch_id, r.mode, r.queue, r.number
  ${OPEN_NUMBER}
  RETURNING id
)`,
    `held AS (
  SELECT (x->>'${ORD}')::integer AS ord FROM json_array_elements($1::json) x WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.id = x->>'id')
)`,
  ];
  // A stable order of the INSERTs, so that one shape of batch is one prepared statement.
  for (const [, { first, rows }] of [...shapes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    params.push(JSON.stringify(rows));
    ctes.push(`w${params.length} AS (\n  ${insertFromJson(first, `$${params.length}`)}\n)`);
  }
  const rows = await db.query<{ ord: number }>(`WITH ${ctes.join(',\n')}\nSELECT ord FROM held`, params);
  return new Set(rows.map((r) => Number(r.ord)));
}
