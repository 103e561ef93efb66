// A branch's Shopify connection as the owner sees it (GET /v1/connectors/shopify), the mode its
// tickets are made in, and its access token, sealed at rest like webhook secrets
// (domain/secret-box.ts, WEBHOOK_SECRETS_KEY) with the branch as associated data.
import type { Services } from '../../core/ctx.ts';
import type { Mode } from '../../core/tenancy.ts';
import type { ShopifyConfig } from '../../core/config.ts';
import { AppError } from '../../domain/errors.ts';
import { SecretBox } from '../../domain/secret-box.ts';
import type { ShopifyConnectionRow } from './store.ts';
import { ShopifyApi } from './shopify-api.ts';

export type ShopifyStatus = 'not_configured' | 'not_connected' | 'choose_location' | 'connected';

export type ShopifyConnection = {
  object: 'shopify_connection';
  status: ShopifyStatus;
  shop: string | null;
  shop_name: string | null;
  livemode: boolean | null;
  location: { id: string; name: string } | null;
  queue: string | null;
  mark_prepared: boolean;
  connected_at: string | null;
};

/** A development store makes test-mode tickets, any other shop live ones (decision 0090). */
export const modeOf = (row: ShopifyConnectionRow): Mode => (row.livemode ? 'live' : 'test');

export function presentConnection(config: ShopifyConfig | null, row: ShopifyConnectionRow | undefined): ShopifyConnection {
  const connected = config !== null && row !== undefined && row.accessToken !== null;
  return {
    object: 'shopify_connection',
    status: config === null ? 'not_configured' : !connected ? 'not_connected' : row.locationId === null ? 'choose_location' : 'connected',
    shop: connected ? row.shop : null,
    shop_name: connected ? row.shopName : null,
    livemode: connected ? row.livemode : null,
    location: connected && row.locationId !== null ? { id: row.locationId, name: row.locationName ?? row.locationId } : null,
    queue: connected ? row.queue : null,
    mark_prepared: connected ? row.markPrepared : false,
    connected_at: connected && row.connectedAt !== null ? new Date(row.connectedAt).toISOString() : null,
  };
}

const box = (services: Services): SecretBox => new SecretBox(services.config.webhookSecretsKey);
const aad = (branchId: string): string => `shopify:${branchId}:access`;

export const sealToken = (services: Services, branchId: string, token: string): string => box(services).seal(token, aad(branchId));
export const openToken = (services: Services, branchId: string, sealed: string): string => box(services).open(sealed, aad(branchId));

/** The operator's Shopify app as a client, or the problem an owner gets when there is none. */
export function shopifyApi(services: Services): ShopifyApi {
  const config = services.config.shopify;
  if (config === null) throw new AppError('conflict', 'This readybell has no Shopify app configured (SHOPIFY_API_KEY): ask its operator.');
  return new ShopifyApi(config);
}

/** The branch's token, opened; a problem when the branch is not connected. */
export function accessTokenOf(services: Services, row: ShopifyConnectionRow | undefined): string {
  if (row === undefined || row.accessToken === null)
    throw new AppError('conflict', 'This branch is not connected to Shopify: connect it first (POST /v1/connectors/shopify/authorize).');
  return openToken(services, row.branchId, row.accessToken);
}
