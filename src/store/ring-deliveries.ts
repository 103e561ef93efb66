// What each channel delivered for a ring: the dedupe record behind "at most once per (ring,
// channel)". A row is written only for a confirmed delivery, and only for a ring of the ticket
// (or branch) the confirming client belongs to, so a forged confirmation cannot mark another
// ticket's ring as delivered.
import type { Queryable } from '../core/db.ts';
import { one } from './db.ts';
import type { Mode } from '../core/tenancy.ts';

export async function wasDelivered(q: Queryable, ringId: string, channel: string): Promise<boolean> {
  return (await one(q, 'SELECT 1 AS x FROM ring_deliveries WHERE ring_id = $1 AND channel = $2 LIMIT 1', [ringId, channel])) !== undefined;
}

/** The channels that confirmed a ring (page, display), each once. */
export async function deliveredChannels(q: Queryable, ringId: string): Promise<string[]> {
  const rows = await q.query<{ channel: string }>('SELECT DISTINCT channel FROM ring_deliveries WHERE ring_id = $1 ORDER BY channel', [
    ringId,
  ]);
  return rows.map((r) => r.channel);
}

/** Records a page's confirmation; false when the ring is not one of this ticket's. */
export async function recordTicketDelivery(
  q: Queryable,
  ringId: string,
  ticketId: string,
  channel: string,
  target: string,
  now: number,
): Promise<boolean> {
  const n = await q.run(
    `INSERT INTO ring_deliveries (ring_id, channel, target, delivered_at)
     SELECT id, $3, $4, $5 FROM rings WHERE id = $1 AND ticket_id = $2
     ON CONFLICT (ring_id, channel, target) DO NOTHING`,
    [ringId, ticketId, channel, target, now],
  );
  return n === 1;
}

/** Records a board's confirmation; only for a ring of the board's own branch and mode. */
export async function recordBranchDelivery(
  q: Queryable,
  ringId: string,
  branchId: string,
  mode: Mode,
  channel: string,
  target: string,
  now: number,
): Promise<boolean> {
  const n = await q.run(
    `INSERT INTO ring_deliveries (ring_id, channel, target, delivered_at)
     SELECT id, $4, $5, $6 FROM rings WHERE id = $1 AND branch_id = $2 AND mode = $3
     ON CONFLICT (ring_id, channel, target) DO NOTHING`,
    [ringId, branchId, mode, channel, target, now],
  );
  return n === 1;
}
