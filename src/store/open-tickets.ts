// Reads of open tickets that are not about one ticket: how many each queue holds (the queue list)
// and which have run past their expiry (maintenance). Both have partial indexes of open tickets
// only (tickets_open_number, tickets_expiry), so their cost follows what is open, not history.
import type { Queryable } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';

/** Open tickets of a branch and mode, per queue; a queue without any is absent. */
export async function countOpenTicketsByQueue(q: Queryable, branchId: string, mode: Mode): Promise<Map<string, number>> {
  const rows = await q.query<{ queue: string; n: number }>(
    'SELECT queue, COUNT(*) AS n FROM tickets WHERE branch_id = $1 AND mode = $2 AND closed_at IS NULL GROUP BY queue',
    [branchId, mode],
  );
  return new Map(rows.map((r) => [r.queue, Number(r.n)]));
}

export type OverdueTicket = { id: string; branchId: string; mode: Mode };

/** Open tickets whose expiry is at or before `now`, the most overdue first. */
export async function listOverdueTickets(q: Queryable, now: number, limit: number): Promise<OverdueTicket[]> {
  const rows = await q.query<{ id: string; branch_id: string; mode: Mode }>(
    'SELECT id, branch_id, mode FROM tickets WHERE closed_at IS NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2',
    [now, limit],
  );
  return rows.map((r) => ({ id: r.id, branchId: r.branch_id, mode: r.mode }));
}
