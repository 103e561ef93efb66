// Webhook endpoints. Every query an API request can reach is filtered by branch and mode; the
// updates by id alone serve the delivery worker, which acts for the system on an id it was given.
import type { Queryable, Tx } from '../core/db.ts';
import { fromJson, one } from './db.ts';
import type { Mode } from '../core/tenancy.ts';
import { EVENT_INSERT, eventValues, insertEvent } from './outbox.ts';
import type { EventRecord } from '../core/events.ts';
import type { EventSubscriber } from '../core/events.ts';

export type WebhookEndpoint = {
  id: string;
  branchId: string;
  mode: Mode;
  url: string;
  enabledEvents: string[];
  description: string | null;
  disabled: boolean;
  disabledReason: string | null;
  disabledAt: number | null;
  /** As stored: plaintext or sealed (see domain/secret-box.ts). */
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
};

export type EndpointRow = {
  id: string;
  branch_id: string;
  mode: Mode;
  url: string;
  enabled_events: string;
  description: string | null;
  disabled: number;
  disabled_reason: string | null;
  disabled_at: number | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
};

export const ENDPOINT_COLUMNS =
  'id, branch_id, mode, url, enabled_events, description, disabled, disabled_reason, disabled_at, secret, previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at';

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function endpointFromRow(r: EndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    branchId: r.branch_id,
    mode: r.mode,
    url: r.url,
    enabledEvents: parseEnabledEvents(r.enabled_events),
    description: r.description,
    disabled: Number(r.disabled) === 1,
    disabledReason: r.disabled_reason,
    disabledAt: num(r.disabled_at),
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretExpiresAt: num(r.previous_secret_expires_at),
    failingSince: num(r.failing_since),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export async function insertEndpoint(tx: Tx, e: WebhookEndpoint): Promise<void> {
  endpointsWritten(tx);
  await tx.run(
    `INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      e.id,
      e.branchId,
      e.mode,
      e.url,
      JSON.stringify(e.enabledEvents),
      e.description,
      e.disabled ? 1 : 0,
      e.disabledReason,
      e.disabledAt,
      e.secret,
      e.previousSecret,
      e.previousSecretExpiresAt,
      e.failingSince,
      e.createdAt,
      e.updatedAt,
    ],
  );
}

export async function getEndpoint(q: Queryable, branchId: string, mode: Mode, id: string): Promise<WebhookEndpoint | undefined> {
  const r = await one<EndpointRow>(q, `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND branch_id = $2 AND mode = $3`, [
    id,
    branchId,
    mode,
  ]);
  return r && endpointFromRow(r);
}

/** Locks the row on PostgreSQL, so concurrent rotations or edits of one endpoint serialise. */
export async function getEndpointForUpdate(tx: Tx, branchId: string, mode: Mode, id: string): Promise<WebhookEndpoint | undefined> {
  const r = await one<EndpointRow>(
    tx,
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND branch_id = $2 AND mode = $3 ${tx.forUpdate}`,
    [id, branchId, mode],
  );
  return r && endpointFromRow(r);
}

export async function listEndpoints(q: Queryable, branchId: string, mode: Mode): Promise<WebhookEndpoint[]> {
  const rows = await q.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE branch_id = $1 AND mode = $2 ORDER BY id DESC`,
    [branchId, mode],
  );
  return rows.map(endpointFromRow);
}

export async function countEndpoints(q: Queryable, branchId: string, mode: Mode): Promise<number> {
  const r = await one<{ n: number }>(q, 'SELECT COUNT(*) AS n FROM webhook_endpoints WHERE branch_id = $1 AND mode = $2', [branchId, mode]);
  return Number(r?.n ?? 0);
}

/** The endpoints an event of this branch and mode may go to: enabled ones, with their filters. */
export type FanOutTarget = EventSubscriber;

/** The stored filter: a JSON list of event types; empty means every event. */
export const parseEnabledEvents = (stored: string): string[] => fromJson<string[]>(stored, ['*']);

const fanOutTargets = (branch: string, mode: string): string =>
  `SELECT id, enabled_events, failing_since FROM webhook_endpoints WHERE branch_id = ${branch} AND mode = ${mode} AND disabled = 0 ORDER BY id`;
const FAN_OUT_TARGETS = fanOutTargets('$1', '$2');
// The event's INSERT and the endpoints to fan it out to, in one round trip on PostgreSQL.
const EVENT_WITH_TARGETS = `WITH e AS (${EVENT_INSERT}) ${fanOutTargets('$2', '$3')}`;

type TargetRow = { id: string; enabled_events: string; failing_since: number | null };

const toTargets = (rows: TargetRow[]): FanOutTarget[] =>
  rows.map((r) => ({ id: r.id, enabledEvents: parseEnabledEvents(r.enabled_events), failing: r.failing_since !== null }));

export async function listFanOutTargets(q: Queryable, branchId: string, mode: Mode): Promise<FanOutTarget[]> {
  return toTargets(await q.query<TargetRow>(FAN_OUT_TARGETS, [branchId, mode]));
}

/**
 * Inserts the event (as insertEvent) and lists the endpoints it may fan out to: one statement on
 * PostgreSQL, where the event's transaction pays a round trip per statement (ready pays it before
 * the customer's ring); two on SQLite, which has no data-modifying WITH and no round trips.
 */
export async function insertEventListingTargets(tx: Tx, e: EventRecord): Promise<FanOutTarget[]> {
  if (tx.dialect !== 'postgres') {
    await insertEvent(tx, e);
    return listFanOutTargets(tx, e.branchId, e.mode);
  }
  const known = targetsRead.get(tx)?.get(scopeOf(e.branchId, e.mode));
  if (known !== undefined) {
    // Read earlier in this transaction: the event waits for nothing and goes with the COMMIT.
    await tx.later(EVENT_INSERT, eventValues(e));
    return known;
  }
  const targets = toTargets(await tx.query<TargetRow>(EVENT_WITH_TARGETS, eventValues(e)));
  rememberFanOutTargets(tx, e.branchId, e.mode, targets);
  return targets;
}

// The endpoints a PostgreSQL transaction has read, by branch and mode: a ready's two events, and
// the ticket's UPDATE that reads them first (store/rings.ts), list them once (decision 0054).
// Forgotten when the transaction writes an endpoint. Not on SQLite, whose group commit shares a
// transaction between requests and where a read costs no round trip.
const targetsRead = new WeakMap<Tx, Map<string, FanOutTarget[]>>();
const scopeOf = (branchId: string, mode: string): string => `${branchId}\u0000${mode}`;

export function rememberFanOutTargets(tx: Tx, branchId: string, mode: Mode, targets: FanOutTarget[]): void {
  if (tx.dialect !== 'postgres') return;
  let known = targetsRead.get(tx);
  if (known === undefined) targetsRead.set(tx, (known = new Map()));
  known.set(scopeOf(branchId, mode), targets);
}

const endpointsWritten = (tx: Tx): void => {
  targetsRead.delete(tx);
};

/**
 * The enabled endpoints of the branch and mode that the SQL expressions `branch` and `mode` name,
 * as one JSON column of another statement (PostgreSQL): read with `fanOutTargetsFromJson`.
 */
export const fanOutTargetsJson = (branch: string, mode: string): string =>
  `(SELECT json_agg(json_build_array(w.id, w.enabled_events, w.failing_since IS NOT NULL) ORDER BY w.id) FROM webhook_endpoints w
    WHERE w.branch_id = ${branch} AND w.mode = ${mode} AND w.disabled = 0)`;

export const fanOutTargetsFromJson = (list: unknown): FanOutTarget[] =>
  ((list ?? []) as Array<[string, string, boolean]>).map(([id, events, failing]) => ({
    id,
    enabledEvents: parseEnabledEvents(events),
    failing,
  }));

export async function updateEndpoint(tx: Tx, e: WebhookEndpoint): Promise<void> {
  endpointsWritten(tx);
  await tx.run(
    `UPDATE webhook_endpoints SET url = $2, enabled_events = $3, description = $4, disabled = $5, disabled_reason = $6, disabled_at = $7,
       secret = $8, previous_secret = $9, previous_secret_expires_at = $10, failing_since = $11, updated_at = $12 WHERE id = $1`,
    [
      e.id,
      e.url,
      JSON.stringify(e.enabledEvents),
      e.description,
      e.disabled ? 1 : 0,
      e.disabledReason,
      e.disabledAt,
      e.secret,
      e.previousSecret,
      e.previousSecretExpiresAt,
      e.failingSince,
      e.updatedAt,
    ],
  );
}

/** Removes the endpoint with its delivery log; queued jobs find no delivery and end quietly. */
export async function deleteEndpoint(tx: Tx, branchId: string, mode: Mode, id: string): Promise<boolean> {
  endpointsWritten(tx);
  const n = await tx.run('DELETE FROM webhook_endpoints WHERE id = $1 AND branch_id = $2 AND mode = $3', [id, branchId, mode]);
  if (n === 0) return false;
  await tx.run('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)', [id]);
  await tx.run('DELETE FROM webhook_deliveries WHERE endpoint_id = $1', [id]);
  return true;
}

/**
 * Disables an endpoint and fails its pending deliveries at once, so the log says what happened
 * now rather than at each delivery's next scheduled attempt. Idempotent.
 */
export async function disableEndpoint(tx: Tx, id: string, reason: string, now: number): Promise<void> {
  endpointsWritten(tx);
  await tx.run(
    'UPDATE webhook_endpoints SET disabled = 1, disabled_reason = $2, disabled_at = $3, updated_at = $3 WHERE id = $1 AND disabled = 0',
    [id, reason, now],
  );
  await failPendingDeliveries(tx, id, now);
}

export async function failPendingDeliveries(tx: Tx, endpointId: string, now: number): Promise<void> {
  await tx.run(
    "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'endpoint disabled', updated_at = $2 WHERE endpoint_id = $1 AND status = 'pending'",
    [endpointId, now],
  );
}

/** Notes a failed attempt; returns since when the endpoint has failed without a success. */
export async function noteEndpointFailure(tx: Tx, id: string, now: number): Promise<number> {
  endpointsWritten(tx);
  const r = await one<{ failing_since: number | null }>(
    tx,
    'UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since',
    [id, now],
  );
  return num(r?.failing_since) ?? now;
}

export async function noteEndpointSuccess(tx: Tx, id: string): Promise<void> {
  endpointsWritten(tx);
  await tx.run('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [id]);
}
