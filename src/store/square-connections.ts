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

export type SquareTokens = { accessToken: string; refreshToken: string | null; expiresAt: number | null };

/** A code exchanged (the shared OAuth flow, connectors/oauth-flow.ts): the merchant and its sealed tokens; the location is chosen next. */
export async function saveConnected(
  tx: Tx,
  c: { branchId: string; environment: string; merchantId: string; merchantName: string | null; tokens: SquareTokens; now: number },
): Promise<void> {
  await tx.run(
    `INSERT INTO square_connections (branch_id, environment, merchant_id, merchant_name, access_token, refresh_token, token_expires_at,
       connected_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
     ON CONFLICT (branch_id) DO UPDATE SET environment = $2, merchant_id = $3, merchant_name = $4, access_token = $5, refresh_token = $6,
       token_expires_at = $7, connected_at = $8, location_id = NULL, location_name = NULL, refresh_failed_at = NULL, last_error = NULL,
       updated_at = $8`,
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
