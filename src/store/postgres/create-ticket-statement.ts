// Ticket creates on PostgreSQL as one statement, run outside an explicit transaction: a single
// statement is atomic by itself, and one round trip is the whole cost of a create (BEGIN, six
// statements and COMMIT before). It numbers each ticket, inserts it, records its event and makes
// the webhook deliveries and jobs that createTicket, recordEvent and the fan-out make, row for
// row. Several creates can share the statement, and so one commit and one WAL flush
// (docs/decisions/0010-postgres-create-one-statement.md).
//
// A create is written only when every precondition holds: its branch still has the timezone,
// settings and default queue the caller computed the business day, expiry and queue from; the
// queue exists; the caller brought ids for every delivery; its number is not held by a ticket
// open since an earlier day. Otherwise nothing of it is written (a held number excepted: that
// number is skipped, as the transactional path skips it), its result says why, and the caller
// falls back to the transactional path, so errors and edge cases behave exactly as there.
import type { Queryable } from '../db.ts';
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
  /** What the branch holds now; the caller's copy is stale when `fresh` is false. */
  branch: { timezone: string; settings: string; defaultQueue: string };
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
  ['in_queue_given', 'boolean'], ['in_timezone', 'text'], ['in_settings', 'text'], ['in_day', 'text'],
  ['in_fan_out', 'boolean'], ['in_room', 'integer'], ['in_event_id', 'text'], ['in_event_at', 'bigint'],
  ['in_body_before', 'text'], ['in_body_after', 'text'], ['in_key_prefix', 'text'], ['in_lease_by', 'text'], ['in_lease_until', 'bigint'],
];
const SLOT_FIELDS: Array<[string, string]> = [['s_ord', 'bigint'], ['s_i', 'bigint'], ['s_delivery', 'text'], ['s_job', 'text'], ['s_payload', 'text']];
const TICKET_COLUMNS = UNNUMBERED_COLUMNS.split(', ');
const FIXED = 3; // $1 event type, $2 wanted event names, $3 job kind

const arrayParams = (fields: Array<[string, string]>, from: number): string => fields.map(([, type], i) => `$${from + i}::${type}[]`).join(', ');
const ROWS_FROM = FIXED + 1;
const SLOTS_FROM = ROWS_FROM + ROW_FIELDS.length;
const TICKETS_FROM = SLOTS_FROM + SLOT_FIELDS.length;

// Locks are taken in one order by every statement (counters by key, tickets by number), so two
// statements never wait for each other in a cycle; a statement holds at most one day of a queue
// (the caller's rule), so a create still numbering on yesterday's counter never waits for one
// that holds today's while holding yesterday's.
const SQL = `WITH x AS (
  SELECT * FROM unnest(${arrayParams(ROW_FIELDS, ROWS_FROM)}, ${arrayParams(TICKET_COLUMNS.map((c, i) => [c, UNNUMBERED_TYPES[i]!]), TICKETS_FROM)})
    WITH ORDINALITY AS x(${ROW_FIELDS.map(([f]) => f).join(', ')}, ${UNNUMBERED_COLUMNS}, ord)
),
slots AS (
  SELECT * FROM unnest(${arrayParams(SLOT_FIELDS, SLOTS_FROM)}) AS s(${SLOT_FIELDS.map(([f]) => f).join(', ')})
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
  WHERE b.fresh
    AND EXISTS (SELECT 1 FROM queues q WHERE q.branch_id = x.branch_id AND q.name = x.queue)
    AND coalesce(wn.n, 0) <= x.in_room
),
need AS (
  SELECT branch_id, mode, queue, in_day, count(*)::integer AS k FROM go GROUP BY branch_id, mode, queue, in_day
),
c AS (
  INSERT INTO queue_counters (branch_id, mode, queue, day, last_number)
  SELECT branch_id, mode, queue, in_day, k FROM need ORDER BY branch_id, mode, queue, in_day
  ON CONFLICT (branch_id, mode, queue, day) DO UPDATE SET last_number = queue_counters.last_number + EXCLUDED.last_number
  RETURNING branch_id, mode, queue, day, last_number
),
n AS (
  SELECT go.*, c.last_number - need.k + row_number() OVER (PARTITION BY go.branch_id, go.mode, go.queue, go.in_day ORDER BY go.ord) AS number
  FROM go
  JOIN need ON need.branch_id = go.branch_id AND need.mode = go.mode AND need.queue = go.queue AND need.in_day = go.in_day
  JOIN c ON c.branch_id = go.branch_id AND c.mode = go.mode AND c.queue = go.queue AND c.day = go.in_day
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
SELECT x.ord, b.b_timezone, b.b_settings, b.b_default_queue, b.fresh, made.number,
  coalesce((SELECT wn.n FROM wn WHERE x.in_fan_out AND wn.branch_id = x.branch_id AND wn.mode = x.mode), 0) AS endpoints,
  (SELECT count(*) FROM d WHERE d.event_id = x.in_event_id) AS deliveries,
  (SELECT array_agg(j.id ORDER BY j.id) FROM j JOIN slots s ON s.s_job = j.id WHERE s.s_ord = x.ord) AS job_ids,
  (SELECT array_agg(j.key ORDER BY j.id) FROM j JOIN slots s ON s.s_job = j.id WHERE s.s_ord = x.ord) AS job_keys
FROM x
LEFT JOIN b ON b.ord = x.ord
LEFT JOIN made ON made.ord = x.ord
ORDER BY x.ord`;

type Row = {
  ord: number; b_timezone: string | null; b_settings: string | null; b_default_queue: string | null; fresh: boolean | null;
  number: number | null; endpoints: number; deliveries: number; job_ids: string[] | null; job_keys: string[] | null;
};

/**
 * Runs the creates; one result per input, in order, undefined where the branch does not exist.
 * `db` must run the statement on its own, outside any transaction (PostgresDb.query does): its
 * commit is what makes the creates visible, and the caller answers only after it.
 */
export async function runCreateStatement(db: Queryable, k: CreateStatementConstants, items: readonly CreateStatementInput[]): Promise<Array<CreateStatementResult | undefined>> {
  const rowFields: unknown[][] = ROW_FIELDS.map(() => []);
  const slotFields: unknown[][] = SLOT_FIELDS.map(() => []);
  const ticketFields: unknown[][] = TICKET_COLUMNS.map(() => []);
  items.forEach((it, index) => {
    const w = it.webhooks;
    const row = [
      it.queueGiven, it.timezone, it.settings, it.day, w !== null, w?.deliveryIds.length ?? 0, it.event.id, it.event.createdAt,
      it.event.bodyBefore, it.event.bodyAfter, w?.jobKeyPrefix ?? '', w?.lease?.workerId ?? null, w?.lease?.until ?? null,
    ];
    row.forEach((v, f) => rowFields[f]!.push(v));
    it.ticket.forEach((v, f) => ticketFields[f]!.push(v));
    w?.deliveryIds.forEach((id, i) => {
      // WITH ORDINALITY and row_number() both count from 1.
      [index + 1, i + 1, id, w.jobIds[i], w.jobPayloads[i]].forEach((v, f) => slotFields[f]!.push(v));
    });
  });
  const rows = await db.query<Row>(SQL, [k.eventType, k.wantedEvents, k.jobKind, ...rowFields, ...slotFields, ...ticketFields]);
  return rows.map((r) => {
    if (r.fresh === null) return undefined;
    const ids = r.job_ids ?? [];
    const keys = r.job_keys ?? [];
    return {
      branch: { timezone: r.b_timezone!, settings: r.b_settings!, defaultQueue: r.b_default_queue! },
      fresh: r.fresh,
      number: r.number === null ? null : Number(r.number),
      endpoints: Number(r.endpoints),
      deliveries: Number(r.deliveries),
      jobs: ids.map((id, i) => ({ id, key: keys[i]! })),
    };
  });
}
