// A local fake of the Shopify endpoints the connector calls (SHOPIFY_API_URL points here): the
// OAuth code exchange (POST /admin/oauth/access_token) and the Admin GraphQL endpoint
// (POST /admin/api/<version>/graphql.json, X-Shopify-Access-Token), answering the operations the
// connector sends by their names. The authorize page is simulated by `authorize(url)`; webhooks
// are built and signed by `webhook()` with node:crypto as Shopify documents them (base64
// HMAC-SHA256 of the raw body with the app's secret), never with readybell's code.
import { createHmac, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { bodyServer } from './body-server.ts';

export type FakeFulfillmentOrder = { id: string; status: string; methodType: 'PICK_UP' | 'SHIPPING'; locationId: string };
export type FakeShopifyOrder = {
  id: string;
  legacyId: number;
  name: string;
  cancelledAt: string | null;
  tags: string[];
  phone: string | null;
  fulfillmentOrders: FakeFulfillmentOrder[];
};
export type ShopifyCall = { path: string; operation: string | null; variables: any; token: string | undefined };

export class FakeShopify {
  static readonly API_KEY = 'shopify-client-id';
  static readonly API_SECRET = 'shopify-client-secret';
  static readonly SHOP = 'corner-cafe.myshopify.com';
  static readonly LOCATION = 'gid://shopify/Location/1001';
  url = '';
  /** A development store (test-mode tickets) unless set false. */
  development = true;
  readonly calls: ShopifyCall[] = [];
  readonly orders = new Map<string, FakeShopifyOrder>();
  readonly locations = [
    { id: FakeShopify.LOCATION, name: 'Main Street', isActive: true },
    { id: 'gid://shopify/Location/1002', name: 'Old Town', isActive: false },
  ];
  /** Fulfillment orders marked prepared for pickup through the Admin API. */
  readonly prepared: string[] = [];
  /** The next GraphQL call is THROTTLED once. */
  throttleOnce = false;
  private readonly tokens = new Map<string, string>();
  private readonly codes = new Map<string, string>();
  private seq = 0;
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = bodyServer((req, text, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      const json = (status: number, b: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(b));
      const body = text === '' ? {} : JSON.parse(text);
      if (req.method === 'POST' && path === '/admin/oauth/access_token') {
        const shop = this.codes.get(body.code);
        if (body.client_id !== FakeShopify.API_KEY || body.client_secret !== FakeShopify.API_SECRET || shop === undefined)
          return json(400, { error: 'invalid_request', error_description: 'bad code or client' });
        this.codes.delete(body.code);
        const token = `shpat_${++this.seq}`;
        this.tokens.set(token, shop);
        return json(200, { access_token: token, scope: 'read_orders,write_orders' });
      }
      const token = req.headers['x-shopify-access-token'] as string | undefined;
      const operation = /(?:query|mutation)\s+(\w+)/.exec(String(body.query ?? ''))?.[1] ?? null;
      this.calls.push({ path, operation, variables: body.variables, token });
      if (req.method !== 'POST' || !/^\/admin\/api\/[\w-]+\/graphql\.json$/.test(path)) return json(404, { errors: 'Not Found' });
      if (token === undefined || !this.tokens.has(token)) return json(401, { errors: '[API] Invalid API key or access token' });
      if (this.throttleOnce) {
        this.throttleOnce = false;
        return json(200, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }] });
      }
      return json(200, { data: this.answer(operation, body.variables ?? {}) });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';
    return this;
  }

  private answer(operation: string | null, v: any): unknown {
    const wire = (o: FakeShopifyOrder) => ({
      id: o.id,
      name: o.name,
      cancelledAt: o.cancelledAt,
      tags: o.tags,
      phone: o.phone,
      fulfillmentOrders: {
        nodes: o.fulfillmentOrders.map((f) => ({
          id: f.id,
          status: f.status,
          deliveryMethod: { methodType: f.methodType },
          assignedLocation: { location: { id: f.locationId } },
        })),
      },
    });
    switch (operation) {
      case 'readybellShop':
        return { shop: { name: 'Corner Café', plan: { partnerDevelopment: this.development } } };
      case 'readybellLocations':
        return { locations: { nodes: this.locations } };
      case 'readybellOrder': {
        const o = this.orders.get(v.id);
        return { order: o === undefined ? null : wire(o) };
      }
      case 'readybellFulfillmentOrder': {
        const o = [...this.orders.values()].find((x) => x.fulfillmentOrders.some((f) => f.id === v.id));
        return { fulfillmentOrder: o === undefined ? null : { orderId: o.id } };
      }
      case 'readybellTag': {
        const o = this.orders.get(v.id)!;
        for (const t of v.tags) if (!o.tags.includes(t)) o.tags.push(t);
        return { tagsAdd: { userErrors: [] } };
      }
      case 'readybellPrepared': {
        for (const { fulfillmentOrderId } of v.input.lineItemsByFulfillmentOrder) this.prepared.push(fulfillmentOrderId);
        return { fulfillmentOrderLineItemsPreparedForPickup: { userErrors: [] } };
      }
      default:
        throw new Error(`the fake does not know ${operation}`);
    }
  }

  /** The env that points readybell's Shopify app at this fake. */
  env(): Record<string, string> {
    return { SHOPIFY_API_KEY: FakeShopify.API_KEY, SHOPIFY_API_SECRET: FakeShopify.API_SECRET, SHOPIFY_API_URL: this.url };
  }

  /** The shop's authorize page: checks the URL readybell built; answers the callback URL Shopify sends the browser to. */
  authorize(authorizeUrl: string, shop = FakeShopify.SHOP): { redirect: URL; params: URLSearchParams } {
    const u = new URL(authorizeUrl);
    if (u.origin !== this.url || u.pathname !== '/admin/oauth/authorize') throw new Error(`not the fake's authorize page: ${authorizeUrl}`);
    const params = u.searchParams;
    if (params.get('client_id') !== FakeShopify.API_KEY) throw new Error('client_id');
    const redirect = new URL(params.get('redirect_uri')!);
    const code = randomUUID();
    this.codes.set(code, shop);
    for (const [k, val] of Object.entries({ code, shop, state: params.get('state')!, timestamp: '1700000000', hmac: 'ignored' }))
      redirect.searchParams.set(k, val);
    return { redirect, params };
  }

  addOrder(o: { methodType?: 'PICK_UP' | 'SHIPPING'; locationId?: string; phone?: string } = {}): FakeShopifyOrder {
    const n = ++this.seq;
    const order: FakeShopifyOrder = {
      id: `gid://shopify/Order/${5000 + n}`,
      legacyId: 5000 + n,
      name: `#${1000 + n}`,
      cancelledAt: null,
      tags: [],
      phone: o.phone ?? null,
      fulfillmentOrders: [
        {
          id: `gid://shopify/FulfillmentOrder/${7000 + n}`,
          status: 'OPEN',
          methodType: o.methodType ?? 'PICK_UP',
          locationId: o.locationId ?? FakeShopify.LOCATION,
        },
      ],
    };
    this.orders.set(order.id, order);
    return order;
  }

  /** A webhook as Shopify delivers it: the topic's body, signed over its exact bytes. */
  webhook(
    topic: string,
    order: FakeShopifyOrder,
    opts: { webhookId?: string; shop?: string } = {},
  ): { body: string; headers: Record<string, string> } {
    const fo = order.fulfillmentOrders[0]!;
    const payload =
      topic === 'fulfillments/create'
        ? { id: 9000 + order.legacyId, order_id: order.legacyId, status: 'success' }
        : topic === 'fulfillment_orders/line_items_prepared_for_pickup'
          ? { fulfillment_order: { id: fo.id, status: fo.status, preparable: true } }
          : { id: order.legacyId, admin_graphql_api_id: order.id, name: order.name, cancelled_at: order.cancelledAt };
    const body = JSON.stringify(payload);
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': topic,
        'x-shopify-shop-domain': opts.shop ?? FakeShopify.SHOP,
        'x-shopify-webhook-id': opts.webhookId ?? randomUUID(),
        'x-shopify-api-version': '2026-10',
        'x-shopify-hmac-sha256': createHmac('sha256', FakeShopify.API_SECRET).update(body).digest('base64'),
      },
    };
  }

  graphqlCalls(operation: string): ShopifyCall[] {
    return this.calls.filter((c) => c.operation === operation);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
