// Ticket creates on PostgreSQL in two statements for any number of creates, each outside an
// explicit transaction (a single statement is atomic by itself):
//
// 1. The numbers: the queues' day counters move on by the count of creates each gets, in one
//    upsert that commits without waiting for the WAL flush (PostgresDb.queryUnflushed). The
//    counter row is locked only for that statement, not through a flush: concurrent statements
//    of one queue no longer wait for each other's fsync.
// 2. The rest: each ticket with its number, its event, and the webhook deliveries and jobs that
//    createTicket, recordEvent and the fan-out make, row for row, committed durably. That commit
//    flushes the WAL up to itself, so the counters' earlier commit is on disk before any ticket
//    numbered from it is acknowledged; a crash before it loses both, and nobody was told.
//
// Several creates share the statements, and so one commit and one WAL flush
// (docs/decisions/0010-postgres-create-one-statement.md).
//
// A create is written only when every precondition holds: its branch still has the timezone,
// settings and default queue the caller computed the business day, expiry and queue from; the
// queue exists; the caller brought ids for every delivery; its number is not held by a ticket
// open since an earlier day. Otherwise nothing of it is written, its result says why, and the
// caller falls back to the transactional path, so errors and edge cases behave exactly as there.
// The numbers it took stay taken: a ticket refused after numbering (its branch changed between
// the two statements, a webhook endpoint more than it brought ids for, a failed statement)
// leaves a gap in its queue's numbers; a number held since an earlier day is skipped, as always.
import type { Queryable, Row as DbRow } from '../db.ts';
import { UNNUMBERED_COLUMNS, UNNUMBERED_TYPES } from '../tickets.ts';

export type CreateStatementInput = {
  /** The ticket's values for UNNUMBERED_COLUMNS (its branch, mode and queue among them). */
  ticket: unknown[];
  /** False when the ticket's queue is the branch's default queue as the caller last knew it. */
  queueGiven: boolean;
  /** The branch's timezone and raw settings text as the caller last knew them. */
  timezone: string;
  settings: string;
  day: string;
  event: { id: string; createdAt: number; bodyBefore: string; bodyAfter: string };
  /** Null: no webhook fan-out is installed. */
  webhooks: {
    deliveryIds: string[];
    jobIds: string[];
    jobPayloads: string[];
    /** The job key without its endpoint id. */
    jobKeyPrefix: string;
    lease: { workerId: string; until: number } | null;
  } | null;
};

export type CreateStatementResult = {
  /** What the branch holds now, when the caller's copy was stale (`fresh` false); null otherwise. */
  branch: { timezone: string; settings: string; defaultQueue: string } | null;
  fresh: boolean;
  /** Null when nothing was created. */
  number: number | null;
  /** Endpoints that want the event (their deliveries were made only if the ids sufficed). */
  endpoints: number;
  deliveries: number;
  /** Jobs written, leased to the input's worker when it had one. */
  jobs: Array<{ id: string; key: string }>;
};

/** What every create of a statement shares. */
export type CreateStatementConstants = { eventType: string; wantedEvents: string[]; jobKind: string };

const ROW_FIELDS: Array<[string, string]> = [
  ['in_number', 'bigint'],
  ['in_queue_given', 'boolean'],
  ['in_timezone', 'text'],
  ['in_settings', 'text'],
  ['in_day', 'text'],
  ['in_fan_out', 'boolean'],
  ['in_room', 'integer'],
  ['in_event_id', 'text'],
  ['in_event_at', 'bigint'],
  ['in_body_before', 'text'],
  ['in_body_after', 'text'],
  ['in_key_prefix', 'text'],
  ['in_lease_by', 'text'],
  ['in_lease_until', 'bigint'],
];
const SLOT_FIELDS: Array<[string, string]> = [
  ['s_ord', 'bigint'],
  ['s_i', 'bigint'],
  ['s_delivery', 'text'],
  ['s_job', 'text'],
  ['s_payload', 'text'],
];
const TICKET_COLUMNS = UNNUMBERED_COLUMNS.split(', ');
const TICKET_FIELDS: Array<[string, string]> = TICKET_COLUMNS.map((c, i) => [c, UNNUMBERED_TYPES[i]!]);
const recordType = (fields: Array<[string, string]>): string => fields.map(([f, type]) => `${f} ${type}`).join(', ');

// The counters of every (branch, mode, queue, day) in the creates, each moved on by its count, in
// key order (so two statements never wait for each other in a cycle). A queue that does not exist
// gets no counter row; a branch whose timezone, settings or default queue is not what the caller
// knew gets no numbers (the second statement then says it is stale), so a branch change costs a
// retry, not a gap.
const NUMBER_SQL = `INSERT INTO queue_counters (branch_id, mode, queue, day, last_number)
  SELECT g.branch_id, g.mode, g.queue, g.day, g.k
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::text[], $8::boolean[]) AS g(branch_id, mode, queue, day, k, timezone, settings, queue_given)
  JOIN branches br ON br.id = g.branch_id AND br.timezone = g.timezone AND br.settings = g.settings AND (g.queue_given OR br.default_queue = g.queue)
  WHERE EXISTS (SELECT 1 FROM queues q WHERE q.branch_id = g.branch_id AND q.name = g.queue)
  ORDER BY g.branch_id, g.mode, g.queue, g.day
  ON CONFLICT (branch_id, mode, queue, day) DO UPDATE SET last_number = queue_counters.last_number + EXCLUDED.last_number
  RETURNING branch_id, mode, queue, day, last_number`;

// The tickets are inserted in number order, so two statements inserting into one queue's unique
// index never wait for each other in a cycle.
// The creates come as one JSON document ($4) and the delivery slots as another ($5) rather than
// as an array per column: JSON.stringify is native and makes one flat string, where pg's array
// literals escape every element in JavaScript and hand the socket a rope of thousands of pieces
// (measured: a fifth of the node's CPU per create went to that).
const SQL = `WITH x AS (
  SELECT * FROM json_to_recordset($4::json) AS x(ord bigint, ${recordType(ROW_FIELDS)}, ${recordType(TICKET_FIELDS)})
),
slots AS (
  SELECT * FROM json_to_recordset($5::json) AS s(${recordType(SLOT_FIELDS)})
),
b AS (
  SELECT x.ord, br.timezone AS b_timezone, br.settings AS b_settings, br.default_queue AS b_default_queue,
    (br.timezone = x.in_timezone AND br.settings = x.in_settings AND (x.in_queue_given OR br.default_queue = x.queue)) AS fresh
  FROM x JOIN branches br ON br.id = x.branch_id
),
w AS (
  SELECT e.branch_id, e.mode, e.id, row_number() OVER (PARTITION BY e.branch_id, e.mode ORDER BY e.id) AS i
  FROM webhook_endpoints e
  WHERE (e.branch_id, e.mode) IN (SELECT branch_id, mode FROM x WHERE in_fan_out) AND e.disabled = 0
    AND CASE WHEN e.enabled_events = '' THEN true ELSE e.enabled_events::jsonb ?| $2::text[] END
),
wn AS (
  SELECT branch_id, mode, count(*) AS n FROM w GROUP BY branch_id, mode
),
go AS (
  SELECT x.* FROM x
  JOIN b ON b.ord = x.ord
  LEFT JOIN wn ON x.in_fan_out AND wn.branch_id = x.branch_id AND wn.mode = x.mode
  WHERE b.fresh AND x.in_number IS NOT NULL
    AND EXISTS (SELECT 1 FROM queues q WHERE q.branch_id = x.branch_id AND q.name = x.queue)
    AND coalesce(wn.n, 0) <= x.in_room
),
n AS (
  SELECT go.*, go.in_number AS number FROM go
),
t AS (
  INSERT INTO tickets (number, display_number, ${UNNUMBERED_COLUMNS})
  SELECT n.number, n.queue || '-' || n.number::text, ${TICKET_COLUMNS.map((c) => `n.${c}`).join(', ')}
  FROM n ORDER BY n.branch_id, n.mode, n.queue, n.number
  ON CONFLICT (branch_id, mode, queue, number) WHERE closed_at IS NULL DO NOTHING
  RETURNING id, number, display_number
),
made AS (
  SELECT n.*, t.display_number AS made_display_number FROM t JOIN n ON n.id = t.id
),
ev AS (
  INSERT INTO events (id, branch_id, mode, type, created_at, body)
  SELECT in_event_id, branch_id, mode, $1::text, in_event_at, in_body_before || made_display_number || in_body_after FROM made
  RETURNING id
),
d AS (
  INSERT INTO webhook_deliveries (id, endpoint_id, branch_id, mode, event_id, event_type, status, attempts, auto_attempts, next_attempt_at, created_at, updated_at)
  SELECT s.s_delivery, w.id, made.branch_id, made.mode, made.in_event_id, $1::text, 'pending', 0, 0, made.in_event_at, made.in_event_at, made.in_event_at
  FROM made
  JOIN w ON made.in_fan_out AND w.branch_id = made.branch_id AND w.mode = made.mode
  JOIN slots s ON s.s_ord = made.ord AND s.s_i = w.i
  ON CONFLICT (event_id, endpoint_id) DO NOTHING
  RETURNING id, endpoint_id, event_id
),
j AS (
  INSERT INTO jobs (id, kind, key, payload, run_at, attempts, locked_until, locked_by, created_at)
  SELECT s.s_job, $3::text, made.in_key_prefix || d.endpoint_id, s.s_payload, made.in_event_at,
    CASE WHEN made.in_lease_by IS NULL THEN 0 ELSE 1 END, made.in_lease_until, made.in_lease_by, made.in_event_at
  FROM d
  JOIN made ON made.in_event_id = d.event_id
  JOIN slots s ON s.s_delivery = d.id
  ON CONFLICT (key) DO NOTHING
  RETURNING id, key
)
SELECT x.ord, b.fresh, made.number,
  -- What the caller needs to refresh its copy; nothing to parse when the copy was fresh.
  CASE WHEN b.fresh THEN NULL ELSE b.b_timezone END AS b_timezone,
  CASE WHEN b.fresh THEN NULL ELSE b.b_settings END AS b_settings,
  CASE WHEN b.fresh THEN NULL ELSE b.b_default_queue END AS b_default_queue,
  coalesce((SELECT wn.n FROM wn WHERE x.in_fan_out AND wn.branch_id = x.branch_id AND wn.mode = x.mode), 0) AS endpoints,
  (SELECT count(*) FROM d WHERE d.event_id = x.in_event_id) AS deliveries,
  (SELECT array_agg(j.id ORDER BY j.id) FROM j JOIN slots s ON s.s_job = j.id WHERE s.s_ord = x.ord) AS job_ids,
  (SELECT array_agg(j.key ORDER BY j.id) FROM j JOIN slots s ON s.s_job = j.id WHERE s.s_ord = x.ord) AS job_keys
FROM x
LEFT JOIN b ON b.ord = x.ord
LEFT JOIN made ON made.ord = x.ord
ORDER BY x.ord`;

type Row = {
  ord: number;
  b_timezone: string | null;
  b_settings: string | null;
  b_default_queue: string | null;
  fresh: boolean | null;
  number: number | null;
  endpoints: number;
  deliveries: number;
  job_ids: string[] | null;
  job_keys: string[] | null;
};

/** A store that can run the numbering statement without waiting for its flush (PostgresDb). */
export type CreateStore = Queryable & { queryUnflushed?: <T = DbRow>(sql: string, params?: readonly unknown[]) => Promise<T[]> };

const BRANCH = TICKET_COLUMNS.indexOf('branch_id');
const MODE = TICKET_COLUMNS.indexOf('mode');
const QUEUE = TICKET_COLUMNS.indexOf('queue');

type Group = {
  branchId: string;
  mode: string;
  queue: string;
  day: string;
  timezone: string;
  settings: string;
  queueGiven: boolean;
  members: number[];
};

/** The numbers of the creates, by input index: null where their counter was not moved (see NUMBER_SQL). */
async function numberCreates(db: CreateStore, items: readonly CreateStatementInput[]): Promise<Array<number | null>> {
  const groups = new Map<string, Group>();
  items.forEach((it, i) => {
    const [branchId, mode, queue] = [String(it.ticket[BRANCH]), String(it.ticket[MODE]), String(it.ticket[QUEUE])];
    const key = `${branchId}\u0000${mode}\u0000${queue}\u0000${it.day}`;
    let g = groups.get(key);
    if (g === undefined)
      groups.set(
        key,
        (g = { branchId, mode, queue, day: it.day, timezone: it.timezone, settings: it.settings, queueGiven: true, members: [] }),
      );
    // Another view of the branch for the same counter: one of the two is stale. This create gets
    // no number here; the second statement then says whether it was the stale one.
    if (g.timezone !== it.timezone || g.settings !== it.settings) return;
    // One create relying on the default queue makes the group check that it still is the default.
    g.queueGiven &&= it.queueGiven;
    g.members.push(i);
  });
  const all = [...groups.values()];
  const params = [
    all.map((g) => g.branchId),
    all.map((g) => g.mode),
    all.map((g) => g.queue),
    all.map((g) => g.day),
    all.map((g) => g.members.length),
    all.map((g) => g.timezone),
    all.map((g) => g.settings),
    all.map((g) => g.queueGiven),
  ];
  const run = db.queryUnflushed?.bind(db) ?? db.query.bind(db);
  const rows = await run<{ branch_id: string; mode: string; queue: string; day: string; last_number: number }>(NUMBER_SQL, params);
  const last = new Map(rows.map((r) => [`${r.branch_id}\u0000${r.mode}\u0000${r.queue}\u0000${r.day}`, Number(r.last_number)]));
  const numbers: Array<number | null> = items.map(() => null);
  for (const g of all) {
    const top = last.get(`${g.branchId}\u0000${g.mode}\u0000${g.queue}\u0000${g.day}`);
    if (top === undefined) continue;
    g.members.forEach((index, i) => (numbers[index] = top - g.members.length + 1 + i));
  }
  return numbers;
}

/**
 * Runs the creates; one result per input, in order, undefined where the branch does not exist.
 * Both statements run on their own, outside any transaction (PostgresDb.query does): the second
 * one's commit is what makes the creates visible and durable, and the caller answers only after it.
 */
export async function runCreateStatement(
  db: CreateStore,
  k: CreateStatementConstants,
  items: readonly CreateStatementInput[],
): Promise<Array<CreateStatementResult | undefined>> {
  const numbers = await numberCreates(db, items);
  const creates: Array<Record<string, unknown>> = [];
  const slots: Array<Record<string, unknown>> = [];
  items.forEach((it, index) => {
    const w = it.webhooks;
    const values = [
      numbers[index],
      it.queueGiven,
      it.timezone,
      it.settings,
      it.day,
      w !== null,
      w?.deliveryIds.length ?? 0,
      it.event.id,
      it.event.createdAt,
      it.event.bodyBefore,
      it.event.bodyAfter,
      w?.jobKeyPrefix ?? '',
      w?.lease?.workerId ?? null,
      w?.lease?.until ?? null,
    ];
    // Numbered from 1, as row_number() counts the endpoints the slots are matched with.
    const create: Record<string, unknown> = { ord: index + 1 };
    ROW_FIELDS.forEach(([f], i) => (create[f] = values[i]));
    TICKET_COLUMNS.forEach((c, i) => (create[c] = it.ticket[i]));
    creates.push(create);
    w?.deliveryIds.forEach((id, i) => {
      slots.push({ s_ord: index + 1, s_i: i + 1, s_delivery: id, s_job: w.jobIds[i], s_payload: w.jobPayloads[i] });
    });
  });
  const rows = await db.query<Row>(SQL, [k.eventType, k.wantedEvents, k.jobKind, JSON.stringify(creates), JSON.stringify(slots)]);
  return rows.map((r) => {
    if (r.fresh === null) return undefined;
    const ids = r.job_ids ?? [];
    const keys = r.job_keys ?? [];
    return {
      branch: r.fresh ? null : { timezone: r.b_timezone!, settings: r.b_settings!, defaultQueue: r.b_default_queue! },
      fresh: r.fresh,
      number: r.number === null ? null : Number(r.number),
      endpoints: Number(r.endpoints),
      deliveries: Number(r.deliveries),
      jobs: ids.map((id, i) => ({ id, key: keys[i]! })),
    };
  });
}
