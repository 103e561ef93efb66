// The Shopify calls the connector makes: the OAuth code exchange (POST /admin/oauth/access_token,
// plain fetch: the official client covers the Admin API, not the OAuth exchange) and the Admin
// GraphQL calls through the official client (@shopify/admin-api-client). SHOPIFY_API_URL, when
// set, replaces `https://<shop>.myshopify.com` for both (a proxy, or a local fake in tests).
import { createAdminApiClient } from '@shopify/admin-api-client';
import type { ShopifyConfig } from '../../core/config.ts';

/** The Admin API version the queries below are written for. */
export const API_VERSION = '2026-10';
/** Read and tag orders, read their fulfillment orders and mark local pickups prepared; read locations. */
export const SHOPIFY_SCOPES = [
  'read_orders',
  'write_orders',
  'read_merchant_managed_fulfillment_orders',
  'write_merchant_managed_fulfillment_orders',
  'read_locations',
] as const;
const TIMEOUT_MS = 10_000;
let versionWarned = false;

/** A shop's domain as Shopify names it: `<name>.myshopify.com`, nothing else (the code goes there). */
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,59}\.myshopify\.com$/;

/** The owner's shop, normalised (`Corner-Cafe.myshopify.com/` → `corner-cafe.myshopify.com`), or null. */
export function shopDomainOf(input: string): string | null {
  const s = input
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/\/+$/, '');
  return SHOP_DOMAIN.test(s) ? s : null;
}

export class ShopifyCallError extends Error {
  readonly status: number | null;
  constructor(message: string, status: number | null) {
    super(message);
    this.name = 'ShopifyCallError';
    this.status = status;
  }
}

export type ShopifyFulfillmentOrder = { id: string; status: string; methodType: string | null; locationId: string | null };
export type ShopifyOrder = {
  id: string;
  name: string;
  cancelled: boolean;
  tags: string[];
  phone: string | null;
  fulfillmentOrders: ShopifyFulfillmentOrder[];
};
export type ShopifyLocation = { id: string; name: string; active: boolean };

const ORDER = `query readybellOrder($id: ID!) {
  order(id: $id) {
    id name cancelledAt tags phone
    fulfillmentOrders(first: 20) { nodes { id status deliveryMethod { methodType } assignedLocation { location { id } } } }
  }
}`;
const FULFILLMENT_ORDER = `query readybellFulfillmentOrder($id: ID!) { fulfillmentOrder(id: $id) { orderId } }`;
const SHOP = `query readybellShop { shop { name plan { partnerDevelopment } } }`;
const LOCATIONS = `query readybellLocations { locations(first: 100) { nodes { id name isActive } } }`;
const TAGS_ADD = `mutation readybellTag($id: ID!, $tags: [String!]!) { tagsAdd(id: $id, tags: $tags) { userErrors { field message } } }`;
const PREPARED = `mutation readybellPrepared($input: FulfillmentOrderLineItemsPreparedForPickupInput!) {
  fulfillmentOrderLineItemsPreparedForPickup(input: $input) { userErrors { field message } }
}`;

type Payload = { userErrors?: { message?: unknown }[] };
type WireOrder = {
  id?: unknown;
  name?: unknown;
  cancelledAt?: unknown;
  tags?: unknown;
  phone?: unknown;
  fulfillmentOrders?: {
    nodes?: {
      id?: unknown;
      status?: unknown;
      deliveryMethod?: { methodType?: unknown };
      assignedLocation?: { location?: { id?: unknown } };
    }[];
  };
};
/** The answers of the operations above, as far as the connector reads them (anything may be missing). */
type Answer = {
  shop?: { name?: unknown; plan?: { partnerDevelopment?: unknown } };
  locations?: { nodes?: { id?: unknown; name?: unknown; isActive?: unknown }[] };
  order?: WireOrder | null;
  fulfillmentOrder?: { orderId?: unknown } | null;
  tagsAdd?: Payload;
  fulfillmentOrderLineItemsPreparedForPickup?: Payload;
};
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export class ShopifyApi {
  private readonly config: ShopifyConfig;
  constructor(config: ShopifyConfig) {
    this.config = config;
  }

  /** Where a shop's OAuth and Admin API live: the shop itself, or SHOPIFY_API_URL in its place. */
  origin(shop: string): string {
    return this.config.apiUrl ?? `https://${shop}`;
  }

  authorizeUrl(shop: string): string {
    return `${this.origin(shop)}/admin/oauth/authorize`;
  }

  /** The code for an offline access token of the shop (it does not expire; the app's uninstall ends it). */
  async exchangeCode(shop: string, code: string): Promise<string> {
    const res = await fetch(`${this.origin(shop)}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: this.config.apiKey, client_secret: this.config.apiSecret, code }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await res.json().catch(() => null)) as { access_token?: unknown; error?: unknown; error_description?: unknown } | null;
    if (!res.ok || typeof body?.access_token !== 'string')
      throw new ShopifyCallError(`access_token: ${res.status} ${String(body?.error_description ?? body?.error ?? '')}`.trim(), res.status);
    return body.access_token;
  }

  private async request(shop: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
    const origin = this.config.apiUrl;
    const client = createAdminApiClient({
      storeDomain: shop,
      apiVersion: API_VERSION,
      accessToken: token,
      // A version Shopify no longer supports is said once per process, not on every call.
      logger: (entry) => {
        if (entry.type !== 'Unsupported_Api_Version' || versionWarned) return;
        versionWarned = true;
        process.emitWarning(`Shopify Admin API ${API_VERSION} is no longer among the supported versions: update the connector's queries`);
      },
      // The client builds https://<shop>/admin/api/…; SHOPIFY_API_URL takes the origin's place.
      customFetchApi: (url, init) => {
        const u = new URL(String(url));
        const target = origin === null ? u.toString() : `${origin}${u.pathname}${u.search}`;
        return fetch(target, { ...(init as RequestInit), signal: AbortSignal.timeout(TIMEOUT_MS) });
      },
    });
    const { data, errors } = await client.request<Answer>(query, { variables });
    if (errors !== undefined) {
      const throttled = errors.graphQLErrors?.some((e) => e.extensions?.code === 'THROTTLED');
      throw new ShopifyCallError(`Admin API: ${errors.message ?? 'error'}`, throttled ? 429 : (errors.networkStatusCode ?? null));
    }
    return data ?? {};
  }

  private static userErrors(what: string, payload: Payload | undefined): void {
    const errs = payload?.userErrors;
    if (Array.isArray(errs) && errs.length > 0)
      throw new ShopifyCallError(`${what}: ${errs.map((e) => String(e.message)).join('; ')}`, 422);
  }

  async shop(shop: string, token: string): Promise<{ name: string | null; development: boolean }> {
    const d = await this.request(shop, token, SHOP);
    return { name: text(d.shop?.name), development: d.shop?.plan?.partnerDevelopment === true };
  }

  async locations(shop: string, token: string): Promise<ShopifyLocation[]> {
    const d = await this.request(shop, token, LOCATIONS);
    return (d.locations?.nodes ?? []).map((l) => ({ id: String(l.id), name: String(l.name), active: l.isActive === true }));
  }

  async order(shop: string, token: string, id: string): Promise<ShopifyOrder | null> {
    const d = await this.request(shop, token, ORDER, { id });
    const o = d.order;
    if (o == null || text(o.id) === null) return null;
    return {
      id: String(o.id),
      name: String(o.name ?? ''),
      cancelled: o.cancelledAt != null,
      tags: Array.isArray(o.tags) ? o.tags.map(String) : [],
      phone: typeof o.phone === 'string' ? o.phone : null,
      fulfillmentOrders: (o.fulfillmentOrders?.nodes ?? []).map((f) => ({
        id: String(f.id),
        status: String(f.status),
        methodType: text(f.deliveryMethod?.methodType),
        locationId: text(f.assignedLocation?.location?.id),
      })),
    };
  }

  /** The order a fulfillment order belongs to (its prepared-for-pickup webhook names only the fulfillment order). */
  async orderIdOf(shop: string, token: string, fulfillmentOrderId: string): Promise<string | null> {
    const d = await this.request(shop, token, FULFILLMENT_ORDER, { id: fulfillmentOrderId });
    return text(d.fulfillmentOrder?.orderId);
  }

  async addTag(shop: string, token: string, orderId: string, tag: string): Promise<void> {
    const d = await this.request(shop, token, TAGS_ADD, { id: orderId, tags: [tag] });
    ShopifyApi.userErrors('tagsAdd', d.tagsAdd);
  }

  async markPreparedForPickup(shop: string, token: string, fulfillmentOrderId: string): Promise<void> {
    const d = await this.request(shop, token, PREPARED, { input: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId }] } });
    ShopifyApi.userErrors('fulfillmentOrderLineItemsPreparedForPickup', d.fulfillmentOrderLineItemsPreparedForPickup);
  }
}
