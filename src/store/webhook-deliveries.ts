// Webhook deliveries (one per event and endpoint) and their attempt log. The delivery row is the
// truth about a delivery; its outbox job (`deliver:<evt>:<we>`) only says when to look at it.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { Mode } from '../core/tenancy.ts';
import type { RowWrite } from '../core/events.ts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export type WebhookDelivery = {
  id: string;
  endpointId: string;
  branchId: string;
  mode: Mode;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  autoAttempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
};

export type WebhookAttempt = {
  deliveryId: string;
  seq: number;
  attemptedAt: number;
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
  manual: boolean;
};

export type DeliveryRow = {
  id: string;
  endpoint_id: string;
  branch_id: string;
  mode: Mode;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  auto_attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
};

export const DELIVERY_COLUMNS =
  'id, endpoint_id, branch_id, mode, event_id, event_type, status, attempts, auto_attempts, next_attempt_at, last_attempt_at, last_status_code, last_error, created_at, updated_at';

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function deliveryFromRow(r: DeliveryRow): WebhookDelivery {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    branchId: r.branch_id,
    mode: r.mode,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempts: Number(r.attempts),
    autoAttempts: Number(r.auto_attempts),
    nextAttemptAt: num(r.next_attempt_at),
    lastAttemptAt: num(r.last_attempt_at),
    lastStatusCode: num(r.last_status_code),
    lastError: r.last_error,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export type NewDelivery = {
  id: string;
  endpointId: string;
  branchId: string;
  mode: Mode;
  eventId: string;
  eventType: string;
  createdAt: number;
};

/** A new event's delivery as a row to insert (pending, first attempt due at once). */
export const deliveryRow = (d: NewDelivery): RowWrite => ({
  table: 'webhook_deliveries',
  values: {
    id: d.id,
    endpoint_id: d.endpointId,
    branch_id: d.branchId,
    mode: d.mode,
    event_id: d.eventId,
    event_type: d.eventType,
    status: 'pending',
    attempts: 0,
    auto_attempts: 0,
    next_attempt_at: d.createdAt,
    created_at: d.createdAt,
    updated_at: d.createdAt,
  },
});

export async function getDelivery(q: Queryable, branchId: string, mode: Mode, id: string): Promise<WebhookDelivery | undefined> {
  const r = await one<DeliveryRow>(q, `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1 AND branch_id = $2 AND mode = $3`, [
    id,
    branchId,
    mode,
  ]);
  return r && deliveryFromRow(r);
}

export type DeliveryFilter = { status?: DeliveryStatus; eventId?: string; startingAfter?: string; limit: number };

/** Newest first, keyset-paginated on the id (ids sort by creation time). */
export async function listDeliveries(
  q: Queryable,
  branchId: string,
  mode: Mode,
  endpointId: string,
  f: DeliveryFilter,
): Promise<{ data: WebhookDelivery[]; hasMore: boolean }> {
  const where = ['endpoint_id = $1', 'branch_id = $2', 'mode = $3'];
  const values: unknown[] = [endpointId, branchId, mode];
  const add = (sql: string, v: unknown): void => {
    values.push(v);
    where.push(sql.replace('?', `$${values.length}`));
  };
  if (f.status !== undefined) add('status = ?', f.status);
  if (f.eventId !== undefined) add('event_id = ?', f.eventId);
  if (f.startingAfter !== undefined) add('id < ?', f.startingAfter);
  values.push(f.limit + 1);
  const rows = await q.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${values.length}`,
    values,
  );
  return { data: rows.slice(0, f.limit).map(deliveryFromRow), hasMore: rows.length > f.limit };
}

/** Attempts of the given deliveries, oldest first, the most recent `perDelivery` of each. */
export async function listAttempts(q: Queryable, deliveryIds: readonly string[], perDelivery = 20): Promise<Map<string, WebhookAttempt[]>> {
  const out = new Map<string, WebhookAttempt[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return out;
  const placeholders = deliveryIds.map((_, i) => `$${i + 1}`).join(', ');
  const rows = await q.query<{
    delivery_id: string;
    seq: number;
    attempted_at: number;
    status_code: number | null;
    duration_ms: number;
    response_body: string | null;
    error: string | null;
    manual: number;
  }>(
    `SELECT delivery_id, seq, attempted_at, status_code, duration_ms, response_body, error, manual FROM webhook_attempts WHERE delivery_id IN (${placeholders}) ORDER BY delivery_id, seq`,
    deliveryIds,
  );
  for (const r of rows) {
    out.get(r.delivery_id)?.push({
      deliveryId: r.delivery_id,
      seq: Number(r.seq),
      attemptedAt: Number(r.attempted_at),
      statusCode: num(r.status_code),
      durationMs: Number(r.duration_ms),
      responseBody: r.response_body,
      error: r.error,
      manual: Number(r.manual) === 1,
    });
  }
  for (const [id, list] of out) if (list.length > perDelivery) out.set(id, list.slice(-perDelivery));
  return out;
}

export type AttemptOutcome = Omit<WebhookAttempt, 'deliveryId' | 'seq'> & {
  /** The delivery's status and next automatic attempt after this attempt; null keeps both as they are. */
  next: { status: DeliveryStatus; at: number | null } | null;
};

/** Logs one attempt and moves the delivery on, in the caller's transaction. */
export async function recordAttempt(tx: Tx, deliveryId: string, a: AttemptOutcome): Promise<void> {
  // The counter is bumped and read in one statement, so concurrent attempts (a manual retry
  // racing an automatic one) still get distinct sequence numbers.
  const common =
    'attempts = attempts + 1, auto_attempts = auto_attempts + $2, last_attempt_at = $3, last_status_code = $4, last_error = $5, updated_at = $3';
  const values = [deliveryId, a.manual ? 0 : 1, a.attemptedAt, a.statusCode, a.error];
  const r =
    a.next === null
      ? await one<{ attempts: number }>(tx, `UPDATE webhook_deliveries SET ${common} WHERE id = $1 RETURNING attempts`, values)
      : await one<{ attempts: number }>(
          tx,
          `UPDATE webhook_deliveries SET ${common}, status = $6, next_attempt_at = $7 WHERE id = $1 RETURNING attempts`,
          [...values, a.next.status, a.next.at],
        );
  if (r === undefined) return; // deleted with its endpoint meanwhile: nothing left to log against
  await tx.run(
    'INSERT INTO webhook_attempts (delivery_id, seq, attempted_at, status_code, duration_ms, response_body, error, manual) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [deliveryId, Number(r.attempts), a.attemptedAt, a.statusCode, Math.round(a.durationMs), a.responseBody, a.error, a.manual ? 1 : 0],
  );
}

export async function setDeliveryState(
  tx: Tx,
  id: string,
  status: DeliveryStatus,
  nextAttemptAt: number | null,
  lastError: string | null,
  now: number,
): Promise<void> {
  await tx.run(
    'UPDATE webhook_deliveries SET status = $2, next_attempt_at = $3, last_error = COALESCE($4, last_error), updated_at = $5 WHERE id = $1',
    [id, status, nextAttemptAt, lastError, now],
  );
}
