// The Square connector's connections (migration 0013, decision 0073): one row per branch. Tokens
// arrive here sealed (the connector seals and opens them); this module only stores them.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';

export type SquareConnectionRow = {
  branchId: string;
  environment: 'sandbox' | 'production';
  merchantId: string | null;
  merchantName: string | null;
  locationId: string | null;
  locationName: string | null;
  queue: string | null;
  markPrepared: boolean;
  /** Sealed; null when not connected. */
  accessToken: string | null;
  refreshToken: string | null;
  tokenExpiresAt: number | null;
  connectedAt: number | null;
  refreshFailedAt: number | null;
  lastError: string | null;
  updatedAt: number;
};

const COLUMNS =
  'branch_id, environment, merchant_id, merchant_name, location_id, location_name, queue, mark_prepared, access_token, ' +
  'refresh_token, token_expires_at, connected_at, refresh_failed_at, last_error, updated_at';

type Raw = Record<string, unknown>;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const toRow = (r: Raw): SquareConnectionRow => ({
  branchId: String(r.branch_id),
  environment: r.environment === 'production' ? 'production' : 'sandbox',
  merchantId: str(r.merchant_id),
  merchantName: str(r.merchant_name),
  locationId: str(r.location_id),
  locationName: str(r.location_name),
  queue: str(r.queue),
  markPrepared: Number(r.mark_prepared) === 1,
  accessToken: str(r.access_token),
  refreshToken: str(r.refresh_token),
  tokenExpiresAt: num(r.token_expires_at),
  connectedAt: num(r.connected_at),
  refreshFailedAt: num(r.refresh_failed_at),
  lastError: str(r.last_error),
  updatedAt: Number(r.updated_at),
});

export async function getSquareConnection(q: Queryable, branchId: string): Promise<SquareConnectionRow | undefined> {
  const r = await one<Raw>(q, `SELECT ${COLUMNS} FROM square_connections WHERE branch_id = $1`, [branchId]);
  return r && toRow(r);
}

/** The connected branches of a merchant (a merchant may connect several branches, one location each). */
export async function listMerchantConnections(q: Queryable, merchantId: string): Promise<SquareConnectionRow[]> {
  const rows = await q.query<Raw>(
    `SELECT ${COLUMNS} FROM square_connections WHERE merchant_id = $1 AND access_token IS NOT NULL ORDER BY branch_id`,
    [merchantId],
  );
  return rows.map(toRow);
}

/** Connections whose access token runs out before `before`, soonest first. */
export async function listExpiringConnections(q: Queryable, before: number, limit: number): Promise<SquareConnectionRow[]> {
  const rows = await q.query<Raw>(
    `SELECT ${COLUMNS} FROM square_connections WHERE token_expires_at < $1 AND refresh_token IS NOT NULL ORDER BY token_expires_at LIMIT $2`,
    [before, limit],
  );
  return rows.map(toRow);
}

/** How many connections lost their tokens' refresh (for /readyz; names no tenant). */
export async function countRefreshFailures(q: Queryable): Promise<number> {
  const r = await one<{ n: unknown }>(
    q,
    'SELECT COUNT(*) AS n FROM square_connections WHERE refresh_failed_at IS NOT NULL AND access_token IS NOT NULL',
  );
  return Number(r?.n ?? 0);
}

/** Starts an OAuth round: the row exists from then on (not connected until the code is exchanged). */
export async function saveOAuthState(
  tx: Tx,
  s: { branchId: string; environment: string; stateHash: string; sessionHash: string; expiresAt: number; now: number },
): Promise<void> {
  await tx.run(
    `INSERT INTO square_connections (branch_id, environment, oauth_state_hash, oauth_session_hash, oauth_state_expires_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (branch_id) DO UPDATE SET oauth_state_hash = $3, oauth_session_hash = $4, oauth_state_expires_at = $5, updated_at = $6`,
    [s.branchId, s.environment, s.stateHash, s.sessionHash, s.expiresAt, s.now],
  );
}

/**
 * Takes an OAuth state once: its branch and the session hash it was bound to, when it is known and
 * not expired; the state is cleared either way, so a code cannot be sent back with it twice.
 */
export async function takeOAuthState(tx: Tx, stateHash: string, now: number): Promise<{ branchId: string; sessionHash: string } | null> {
  const r = await one<Raw>(
    tx,
    `SELECT branch_id, oauth_session_hash, oauth_state_expires_at FROM square_connections WHERE oauth_state_hash = $1 ${tx.forUpdate}`,
    [stateHash],
  );
  if (r === undefined) return null;
  await tx.run(
    'UPDATE square_connections SET oauth_state_hash = NULL, oauth_session_hash = NULL, oauth_state_expires_at = NULL WHERE branch_id = $1',
    [r.branch_id],
  );
  if (Number(r.oauth_state_expires_at) < now) return null;
  return { branchId: String(r.branch_id), sessionHash: String(r.oauth_session_hash) };
}

export type SquareTokens = { accessToken: string; refreshToken: string | null; expiresAt: number | null };

/** A code exchanged: the merchant and its sealed tokens; the location is chosen next. */
export async function saveConnected(
  tx: Tx,
  c: { branchId: string; environment: string; merchantId: string; merchantName: string | null; tokens: SquareTokens; now: number },
): Promise<void> {
  await tx.run(
    `UPDATE square_connections SET environment = $2, merchant_id = $3, merchant_name = $4, access_token = $5, refresh_token = $6,
       token_expires_at = $7, connected_at = $8, location_id = NULL, location_name = NULL, refresh_failed_at = NULL, last_error = NULL,
       updated_at = $8
     WHERE branch_id = $1`,
    [c.branchId, c.environment, c.merchantId, c.merchantName, c.tokens.accessToken, c.tokens.refreshToken, c.tokens.expiresAt, c.now],
  );
}

export async function saveRefreshed(tx: Tx, branchId: string, tokens: SquareTokens, now: number): Promise<void> {
  await tx.run(
    `UPDATE square_connections SET access_token = $2, refresh_token = COALESCE($3, refresh_token), token_expires_at = $4,
       refresh_failed_at = NULL, last_error = NULL, updated_at = $5
     WHERE branch_id = $1 AND access_token IS NOT NULL`,
    [branchId, tokens.accessToken, tokens.refreshToken, tokens.expiresAt, now],
  );
}

export async function saveRefreshFailure(tx: Tx, branchId: string, error: string, now: number): Promise<void> {
  await tx.run(
    `UPDATE square_connections SET refresh_failed_at = COALESCE(refresh_failed_at, $3), last_error = $2, updated_at = $3
     WHERE branch_id = $1 AND access_token IS NOT NULL`,
    [branchId, error, now],
  );
}

export async function saveSettings(
  tx: Tx,
  branchId: string,
  s: { locationId: string | null; locationName: string | null; queue: string | null; markPrepared: boolean },
  now: number,
): Promise<void> {
  await tx.run(
    'UPDATE square_connections SET location_id = $2, location_name = $3, queue = $4, mark_prepared = $5, updated_at = $6 WHERE branch_id = $1',
    [branchId, s.locationId, s.locationName, s.queue, s.markPrepared ? 1 : 0, now],
  );
}

/** Disconnect: the tokens and the merchant are erased; later notifications for it find no branch. */
export async function eraseConnection(tx: Tx, branchId: string): Promise<void> {
  await tx.run('DELETE FROM square_connections WHERE branch_id = $1', [branchId]);
}
