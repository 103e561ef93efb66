// An account's deletion (decision 0083): the mark an owner sets and clears within the 30 days, and
// the erasure of everything the account holds once they have passed. The erasure deletes table by
// table, children before parents, each in a transaction of its own (as the retention sweep does),
// so no single transaction holds a busy store for the whole of a large account. A node that stops
// half way leaves the mark set, and the next sweep finishes the work; a second node's sweep finds
// less to do, never anything wrong.
import type { Db, Queryable, Tx } from '../core/db.ts';
import { credentialsChanged } from './credential-changes.ts';
import { one } from './db.ts';

export const ERASE_AFTER_MS = 30 * 24 * 3600_000;

/** When the account's deletion was asked for; null when it is not being deleted. */
export async function deletionRequestedAt(q: Queryable, accountId: string): Promise<number | null> {
  const r = await one<{ deletion_requested_at: number | null }>(q, 'SELECT deletion_requested_at FROM accounts WHERE id = $1', [accountId]);
  return r?.deletion_requested_at == null ? null : Number(r.deletion_requested_at);
}

/**
 * Marks the account deleted and ends its sessions; its keys stop with the mark (they are read with
 * it), and every node's cache of verified keys is told. False when it was already marked.
 */
export async function markAccountDeleted(tx: Tx, accountId: string, now: number): Promise<boolean> {
  const marked =
    (await tx.run('UPDATE accounts SET deletion_requested_at = $2 WHERE id = $1 AND deletion_requested_at IS NULL', [accountId, now])) ===
    1;
  if (!marked) return false;
  await tx.run('UPDATE sessions SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL', [accountId, now]);
  await credentialsChanged(tx);
  return true;
}

/** Clears the mark while the 30 days last; false when there was none or they have passed. */
export async function unmarkAccountDeleted(tx: Tx, accountId: string, now: number): Promise<boolean> {
  const n = await tx.run('UPDATE accounts SET deletion_requested_at = NULL WHERE id = $1 AND deletion_requested_at > $2', [
    accountId,
    now - ERASE_AFTER_MS,
  ]);
  if (n === 1) await credentialsChanged(tx);
  return n === 1;
}

/** Accounts whose 30 days have passed at `now`. */
export async function accountsDueForErasure(q: Queryable, now: number, limit = 10): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    'SELECT id FROM accounts WHERE deletion_requested_at IS NOT NULL AND deletion_requested_at <= $1 ORDER BY deletion_requested_at LIMIT $2',
    [now - ERASE_AFTER_MS, limit],
  );
  return rows.map((r) => r.id);
}

const OF_BRANCH = 'branch_id = $1';
const TICKETS = 'SELECT id FROM tickets WHERE branch_id = $1';

/**
 * Every table that holds a branch's data, children first, with the condition that selects the
 * branch's rows ($1 is the branch id). A table added later with a branch_id or account_id column
 * must be added here or to ACCOUNT_TABLES: test/api/account-deletion.test.ts reads the schema and
 * fails until it is.
 */
export const BRANCH_TABLES: ReadonlyArray<readonly [table: string, where: string]> = [
  ['webhook_attempts', 'delivery_id IN (SELECT id FROM webhook_deliveries WHERE branch_id = $1)'],
  ['webhook_deliveries', OF_BRANCH],
  ['webhook_endpoints', OF_BRANCH],
  ['ring_deliveries', 'ring_id IN (SELECT id FROM rings WHERE branch_id = $1)'],
  ['ring_sends', `ticket_id IN (${TICKETS})`],
  ['sms_messages', OF_BRANCH],
  ['push_subscriptions', OF_BRANCH],
  ['wallet_registrations', OF_BRANCH],
  ['wallet_passes', OF_BRANCH],
  ['google_wallet_objects', OF_BRANCH],
  ['rings', OF_BRANCH],
  ['tickets', OF_BRANCH],
  ['events', OF_BRANCH],
  ['idempotency_keys', OF_BRANCH],
  ['queue_counters', OF_BRANCH],
  ['insight_hours', OF_BRANCH],
  ['displays', OF_BRANCH],
  ['announcements', OF_BRANCH],
  ['insight_channel_hours', OF_BRANCH],
  ['square_connections', OF_BRANCH],
  ['shopify_connections', OF_BRANCH],
  ['connector_oauth_states', OF_BRANCH],
  ['queues', OF_BRANCH],
];

/** Tables holding the account's own rows, children first ($1 is the account id); the account row goes last. */
export const ACCOUNT_TABLES: ReadonlyArray<readonly [table: string, where: string]> = [
  ['jobs', 'account_id = $1'],
  ['sessions', 'account_id = $1'],
  ['email_changes', 'account_id = $1'],
  ['invitations', 'account_id = $1'],
  ['api_keys', 'account_id = $1'],
  ['sms_usage', 'account_id = $1'],
  ['billing_accounts', 'account_id = $1'],
  ['email_links', 'user_id IN (SELECT id FROM users WHERE account_id = $1)'],
  ['users', 'account_id = $1'],
  ['branches', 'account_id = $1'],
];

/**
 * Erases the account if its mark is still older than 30 days at `now` (an owner may have restored
 * it since it was listed); returns whether it did. Each table in a transaction of its own.
 */
export async function eraseAccount(db: Db, accountId: string, now: number): Promise<boolean> {
  const stillDue = async (q: Queryable): Promise<boolean> => {
    const at = await deletionRequestedAt(q, accountId);
    return at !== null && at <= now - ERASE_AFTER_MS;
  };
  if (!(await stillDue(db))) return false;
  const branches = await db.query<{ id: string }>('SELECT id FROM branches WHERE account_id = $1', [accountId]);
  for (const { id } of branches) {
    for (const [table, where] of BRANCH_TABLES) await db.write((tx) => tx.run(`DELETE FROM ${table} WHERE ${where}`, [id]));
  }
  for (const [table, where] of ACCOUNT_TABLES) await db.write((tx) => tx.run(`DELETE FROM ${table} WHERE ${where}`, [accountId]));
  return db.write(async (tx) => {
    if (!(await stillDue(tx))) return false;
    return (await tx.run('DELETE FROM accounts WHERE id = $1', [accountId])) === 1;
  });
}
