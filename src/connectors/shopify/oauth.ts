// Shopify's OAuth settings, as data for the shared flow (connectors/oauth-flow.ts). Shopify's
// authorize page is the shop's own (https://<shop>/admin/oauth/authorize), so the owner names the
// shop first: the authorize keeps it on the branch's connection in the same transaction as the
// state, and the code is exchanged at that shop only, never at one the callback's query names.
import type { Action, Services } from '../../core/ctx.ts';
import { invalid } from '../../domain/errors.ts';
import { authorizeVerb, requireConnectorOwner } from '../oauth-flow.ts';
import type { OAuthSettings } from '../port.ts';
import { sealToken, shopifyApi } from './connection-state.ts';
import { SHOPIFY_SCOPES, ShopifyApi, shopDomainOf } from './shopify-api.ts';
import { askedShopOf, saveAskedShop, saveConnected } from './store.ts';

/** The staff page's place for the Shopify connection (the callback returns the browser there). */
export const SHOPIFY_SCREEN = '/staff/#/settings/shopify';

async function connect(services: Services, branchId: string, code: string): Promise<string> {
  const api = shopifyApi(services);
  const shop = await askedShopOf(services.db, branchId);
  if (shop === null) throw new Error('no shop was asked for this branch');
  const token = await api.exchangeCode(shop, code);
  const about = await api.shop(shop, token);
  const accessToken = sealToken(services, branchId, token);
  await services.db.write((tx) =>
    saveConnected(tx, { branchId, shop, shopName: about.name, livemode: !about.development, accessToken, now: services.clock.now() }),
  );
  return shop;
}

export const SHOPIFY_OAUTH: OAuthSettings = {
  connector: 'shopify',
  // The shared flow asks this only to know whether an app is configured; the authorize uses the shop's own page.
  authorizeUrl: (config) => (config.shopify === null ? null : new ShopifyApi(config.shopify).authorizeUrl('shop.myshopify.com')),
  clientId: (config) => config.shopify?.apiKey ?? '',
  scopes: SHOPIFY_SCOPES,
  scopeSeparator: ',',
  connect,
};

/** The owner's shop checked, kept on the branch, then the shared flow's authorize with the shop's own page. */
export const startShopifyAuthorize: Action<{ shop: string; sessionToken: string | null }, { authorize_url: string }> = async ({
  ctx,
  input,
}) => {
  requireConnectorOwner(ctx, 'Shopify');
  const shop = shopDomainOf(input.shop);
  if (shop === null) throw invalid('/shop', "shop must be the store's myshopify.com domain, e.g. corner-cafe.myshopify.com.");
  const settings: OAuthSettings = {
    ...SHOPIFY_OAUTH,
    authorizeUrl: (config) => (config.shopify === null ? null : new ShopifyApi(config.shopify).authorizeUrl(shop)),
  };
  const answer = await authorizeVerb(settings, 'Shopify')({ ctx, input: { sessionToken: input.sessionToken } });
  await saveAskedShop(ctx.tx, ctx.branchId, shop, ctx.services.clock.now());
  return answer;
};
