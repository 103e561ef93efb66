// Whether a ticket has a pass in any wallet (Apple's wallet_passes, Google's google_wallet_objects):
// a close schedules the wallet close job only then, so closing a ticket no customer added to a
// wallet costs one indexed read, not a job (actions/wallet-close.ts).
import type { Queryable } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';
import { one } from './db.ts';

export async function ticketHasWalletPass(q: Queryable, t: { id: string; branchId: string; mode: Mode }): Promise<boolean> {
  const row = await one<{ found: number }>(
    q,
    `SELECT 1 AS found WHERE EXISTS (SELECT 1 FROM wallet_passes WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3)
       OR EXISTS (SELECT 1 FROM google_wallet_objects WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3)`,
    [t.id, t.branchId, t.mode],
  );
  return row !== undefined;
}
