// The Shopify connector (decision 0090): local pickup orders of one store location become tickets,
// as one value of the connector port (decision 0076). Outside this folder, src names Shopify in the
// list of installed connectors, its configuration (SHOPIFY_*), its table's migration and the tables
// an account's erasure empties; the staff page in its screen and the screen's entries in api.ts
// and connector-screens.ts.
import type { Connector } from '../port.ts';
import { registerShopifyRoutes } from './api-routes.ts';
import { SHOPIFY_PREPARED_JOB, shopifyPreparedJob, shopifyReadyHook } from './mark-prepared.ts';
import { SHOPIFY_OAUTH, SHOPIFY_SCREEN } from './oauth.ts';
import { SHOPIFY_ORDER_JOB, shopifyOrderJob } from './order-sync.ts';
import { ShopifyConnectionSchema } from './schemas.ts';
import { countShopifyConnections } from './store.ts';
import { receiveShopifyWebhook } from './webhooks.ts';

export const shopifyConnector: Connector = {
  name: 'shopify',
  config: ['SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET', 'SHOPIFY_API_URL'],
  configured: (config) => config.shopify !== null,
  oauth: SHOPIFY_OAUTH,
  webhook: receiveShopifyWebhook,
  jobs: (registry) => void registry.set(SHOPIFY_ORDER_JOB, shopifyOrderJob).set(SHOPIFY_PREPARED_JOB, shopifyPreparedJob),
  onTicketChange: shopifyReadyHook,
  // Offline access tokens do not expire: nothing to refresh (the hourly run is a no-op).
  refreshTokens: async () => ({ refreshed: 0, failed: 0 }),
  refreshEveryMs: 24 * 3600_000,
  health: async (services) => ({ connected: await countShopifyConnections(services.db) }),
  schemas: [ShopifyConnectionSchema],
  api: registerShopifyRoutes,
  screen: SHOPIFY_SCREEN,
};
