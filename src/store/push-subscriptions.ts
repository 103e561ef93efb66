// Customers' Web Push subscriptions, one set per ticket. Every query is filtered by branch and
// mode as well as ticket; the rows are erased when the ticket closes.
import type { Queryable, Tx } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';

export type PushSubscriptionRecord = {
  id: string;
  ticketId: string;
  branchId: string;
  mode: Mode;
  endpoint: string;
  p256dh: string;
  auth: string;
  createdAt: number;
};

/** A ticket keeps at most this many (a phone and a tablet, a reinstalled browser…). */
export const MAX_SUBSCRIPTIONS_PER_TICKET = 5;

type Row = {
  id: string;
  ticket_id: string;
  branch_id: string;
  mode: Mode;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
};
const toRecord = (r: Row): PushSubscriptionRecord => ({
  id: r.id,
  ticketId: r.ticket_id,
  branchId: r.branch_id,
  mode: r.mode,
  endpoint: r.endpoint,
  p256dh: r.p256dh,
  auth: r.auth,
  createdAt: Number(r.created_at),
});

/**
 * Stores the subscription (a browser re-subscribing the same endpoint replaces its keys) and
 * drops the oldest beyond the per-ticket cap. Returns the stored row's id.
 */
export async function upsertPushSubscription(tx: Tx, s: PushSubscriptionRecord): Promise<string> {
  const rows = await tx.query<{ id: string }>(
    `INSERT INTO push_subscriptions (id, ticket_id, branch_id, mode, endpoint, p256dh, auth, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (ticket_id, endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth
     RETURNING id`,
    [s.id, s.ticketId, s.branchId, s.mode, s.endpoint, s.p256dh, s.auth, s.createdAt],
  );
  const ids = await tx.query<{ id: string }>(
    'SELECT id FROM push_subscriptions WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3 ORDER BY created_at DESC, id DESC',
    [s.ticketId, s.branchId, s.mode],
  );
  for (const old of ids.slice(MAX_SUBSCRIPTIONS_PER_TICKET)) await tx.run('DELETE FROM push_subscriptions WHERE id = $1', [old.id]);
  return rows[0]!.id;
}

export async function listPushSubscriptions(
  q: Queryable,
  branchId: string,
  mode: Mode,
  ticketId: string,
): Promise<PushSubscriptionRecord[]> {
  const rows = await q.query<Row>(
    'SELECT id, ticket_id, branch_id, mode, endpoint, p256dh, auth, created_at FROM push_subscriptions WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3 ORDER BY id',
    [ticketId, branchId, mode],
  );
  return rows.map(toRecord);
}

export async function countPushSubscriptions(q: Queryable, branchId: string, mode: Mode, ticketId: string): Promise<number> {
  const rows = await q.query<{ n: number }>(
    'SELECT COUNT(*) AS n FROM push_subscriptions WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3',
    [ticketId, branchId, mode],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function deletePushSubscription(tx: Tx, id: string): Promise<void> {
  await tx.run('DELETE FROM push_subscriptions WHERE id = $1', [id]);
}

/** Retention: an endpoint is a way to reach someone's device; it goes when the ticket closes. */
export async function deleteTicketPushSubscriptions(tx: Tx, branchId: string, mode: Mode, ticketId: string): Promise<void> {
  await tx.run('DELETE FROM push_subscriptions WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3', [ticketId, branchId, mode]);
}

/** VAPID key rotation: subscriptions made for the old key can no longer be pushed to. */
export async function deleteAllPushSubscriptions(tx: Tx): Promise<number> {
  return tx.run('DELETE FROM push_subscriptions');
}
