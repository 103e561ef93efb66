// Reads behind the live pages: queue positions, recent preparation times, a board's tickets.
// Each is bounded by the open tickets of one branch or by a fixed LIMIT, never by table size.
import type { Queryable } from '../core/db.ts';
import { one } from './db.ts';
import type { Mode } from '../core/tenancy.ts';

/** Ids of the tickets still waiting (created) in one queue, oldest first. */
export async function waitingIds(q: Queryable, branchId: string, mode: Mode, queue: string): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    "SELECT id FROM tickets WHERE branch_id = $1 AND mode = $2 AND status = 'created' AND queue = $3 ORDER BY id",
    [branchId, mode, queue],
  );
  return rows.map((r) => r.id);
}

export const RECENT_TICKETS = 50;

/**
 * Preparation times (ready_at − created_at, ms) among the branch's newest tickets. Read through
 * the (branch, mode, id) index with a LIMIT, so a busy history costs nothing extra.
 */
export async function recentPrepTimes(q: Queryable, branchId: string, mode: Mode, since: number): Promise<number[]> {
  const rows = await q.query<{ created_at: number; ready_at: number | null }>(
    'SELECT created_at, ready_at FROM tickets WHERE branch_id = $1 AND mode = $2 ORDER BY id DESC LIMIT $3',
    [branchId, mode, RECENT_TICKETS],
  );
  const out: number[] = [];
  for (const r of rows) {
    if (r.ready_at === null) continue;
    const ready = Number(r.ready_at);
    if (ready < since) continue;
    out.push(ready - Number(r.created_at));
  }
  return out;
}

export type BoardTicket = {
  id: string;
  queue: string;
  displayNumber: string;
  status: 'created' | 'ready';
  readyAt: number | null;
  rings: number;
};

const OPEN_OF_STATUS = (status: string): string =>
  `SELECT id, queue, display_number, status, ready_at, rings FROM tickets WHERE branch_id = $1 AND mode = $2 AND status = '${status}'`;
// One (branch_id, mode, status, id) range per status, merged in id order: with "status IN" and
// ORDER BY id, SQLite walked the branch's whole history by id testing each row.
const OPEN_TICKETS = `${OPEN_OF_STATUS('created')} UNION ALL ${OPEN_OF_STATUS('ready')} ORDER BY id`;

/** Every open ticket of a branch and mode (what its boards show). */
export async function openTickets(q: Queryable, branchId: string, mode: Mode): Promise<BoardTicket[]> {
  const rows = await q.query<{
    id: string;
    queue: string;
    display_number: string;
    status: 'created' | 'ready';
    ready_at: number | null;
    rings: number;
  }>(OPEN_TICKETS, [branchId, mode]);
  return rows.map((r) => ({
    id: r.id,
    queue: r.queue,
    displayNumber: r.display_number,
    status: r.status,
    readyAt: r.ready_at === null ? null : Number(r.ready_at),
    rings: Number(r.rings),
  }));
}

export async function ringIdOf(q: Queryable, ticketId: string, seq: number): Promise<string | null> {
  const r = await one<{ id: string }>(q, 'SELECT id FROM rings WHERE ticket_id = $1 AND seq = $2', [ticketId, seq]);
  return r?.id ?? null;
}
