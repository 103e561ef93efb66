// The Shopify connector's connections (migration 0024, decision 0090): one row per branch. Kept in
// the connector's folder, as the port asks of a connector (decision 0090 says why): only this
// module writes SQL for it. The access token arrives sealed (connection-state.ts seals and opens it).
import type { Queryable, Tx } from '../../core/db.ts';

export type ShopifyConnectionRow = {
  branchId: string;
  shop: string;
  shopName: string | null;
  livemode: boolean;
  locationId: string | null;
  locationName: string | null;
  queue: string | null;
  markPrepared: boolean;
  /** Sealed; null until the code is exchanged. */
  accessToken: string | null;
  connectedAt: number | null;
  lastError: string | null;
};

const COLUMNS =
  'branch_id, shop, shop_name, livemode, location_id, location_name, queue, mark_prepared, access_token, connected_at, last_error';

type Raw = Record<string, unknown>;
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const toRow = (r: Raw): ShopifyConnectionRow => ({
  branchId: String(r.branch_id),
  shop: String(r.shop),
  shopName: str(r.shop_name),
  livemode: Number(r.livemode) === 1,
  locationId: str(r.location_id),
  locationName: str(r.location_name),
  queue: str(r.queue),
  markPrepared: Number(r.mark_prepared) === 1,
  accessToken: str(r.access_token),
  connectedAt: r.connected_at === null || r.connected_at === undefined ? null : Number(r.connected_at),
  lastError: str(r.last_error),
});

export async function getShopifyConnection(q: Queryable, branchId: string): Promise<ShopifyConnectionRow | undefined> {
  const rows = await q.query<Raw>(`SELECT ${COLUMNS} FROM shopify_connections WHERE branch_id = $1`, [branchId]);
  return rows[0] && toRow(rows[0]);
}

/** The connected branches of a shop (a shop may connect several branches, one location each). */
export async function listShopConnections(q: Queryable, shop: string): Promise<ShopifyConnectionRow[]> {
  const rows = await q.query<Raw>(
    `SELECT ${COLUMNS} FROM shopify_connections WHERE shop = $1 AND access_token IS NOT NULL ORDER BY branch_id`,
    [shop],
  );
  return rows.map(toRow);
}

export async function countShopifyConnections(q: Queryable): Promise<number> {
  const rows = await q.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM shopify_connections WHERE access_token IS NOT NULL');
  return Number(rows[0]?.n ?? 0);
}

/** The shop an owner asked to connect (the authorize): a connected branch keeps its shop and token until the new code is exchanged. */
export async function saveAskedShop(tx: Tx, branchId: string, shop: string, now: number): Promise<void> {
  await tx.run(
    `INSERT INTO shopify_connections (branch_id, shop, asked_shop, updated_at) VALUES ($1, $2, $2, $3)
     ON CONFLICT (branch_id) DO UPDATE SET asked_shop = $2, updated_at = $3`,
    [branchId, shop, now],
  );
}

/** The shop whose code arrives next: the one asked for, not one the callback's query names. */
export async function askedShopOf(q: Queryable, branchId: string): Promise<string | null> {
  const rows = await q.query<{ asked_shop: unknown }>('SELECT asked_shop FROM shopify_connections WHERE branch_id = $1', [branchId]);
  return str(rows[0]?.asked_shop);
}

export async function saveConnected(
  tx: Tx,
  c: { branchId: string; shop: string; shopName: string | null; livemode: boolean; accessToken: string; now: number },
): Promise<void> {
  await tx.run(
    `INSERT INTO shopify_connections (branch_id, shop, shop_name, livemode, access_token, connected_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6)
     ON CONFLICT (branch_id) DO UPDATE SET shop = $2, asked_shop = NULL, shop_name = $3, livemode = $4, access_token = $5, connected_at = $6,
       location_id = NULL, location_name = NULL, last_error = NULL, updated_at = $6`,
    [c.branchId, c.shop, c.shopName, c.livemode ? 1 : 0, c.accessToken, c.now],
  );
}

export async function saveSettings(
  tx: Tx,
  branchId: string,
  s: { locationId: string | null; locationName: string | null; queue: string | null; markPrepared: boolean },
  now: number,
): Promise<void> {
  await tx.run(
    'UPDATE shopify_connections SET location_id = $2, location_name = $3, queue = $4, mark_prepared = $5, updated_at = $6 WHERE branch_id = $1',
    [branchId, s.locationId, s.locationName, s.queue, s.markPrepared ? 1 : 0, now],
  );
}

/** The shop uninstalled the app, or the owner disconnected: the token is erased; later webhooks find no branch. */
export async function eraseConnection(tx: Tx, branchId: string): Promise<void> {
  await tx.run('DELETE FROM shopify_connections WHERE branch_id = $1', [branchId]);
}
