// A local fake of the Square endpoints the connector calls through the `square` SDK (its baseUrl
// points here): POST /oauth2/token (authorization_code and refresh_token), POST /oauth2/revoke
// (Authorization: Client <secret>), GET /v2/merchants/{id}, GET /v2/locations, GET and PUT
// /v2/orders/{id} (PUT checks the order's version like Square: VERSION_MISMATCH on a stale one).
// JSON is Square's snake_case. The authorize page is simulated by `authorize(url)`: it checks the
// parameters readybell put in the URL and answers where Square would send the browser back (the
// redirect_uri with a code and the state, or error=access_denied). Notifications are built and
// signed by `notification()` with node:crypto, as Square documents them, never with readybell's code.
import { createHmac, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { bodyServer } from './body-server.ts';

export type FakeFulfillment = { uid: string; type: 'PICKUP' | 'SHIPMENT'; state: string; phone?: string };
export type FakeOrder = {
  id: string;
  location_id: string;
  version: number;
  state: 'OPEN' | 'COMPLETED' | 'CANCELED';
  ticket_name?: string;
  fulfillments: FakeFulfillment[];
};
export type SquareCall = { method: string; path: string; body: any; authorization: string | undefined };

export class FakeSquare {
  static readonly APP_ID = 'sandbox-sq0idb-readybelltest';
  static readonly APP_SECRET = 'sandbox-sq0csb-secret';
  static readonly SIGNATURE_KEY = 'fake-signature-key';
  static readonly MERCHANT = 'MLFAKEMERCHANT1';
  url = '';
  /** The merchant whose owner authorizes next (one merchant may connect several branches). */
  merchantId = FakeSquare.MERCHANT;
  readonly calls: SquareCall[] = [];
  readonly orders = new Map<string, FakeOrder>();
  readonly locations = [
    { id: 'LMAIN0001', name: 'Main Street', status: 'ACTIVE', address: { address_line_1: '1 Main Street', locality: 'Springfield' } },
    { id: 'LOLD00002', name: 'Old Town', status: 'INACTIVE' },
  ];
  /** Valid access tokens, and the refresh token each was granted with. */
  readonly accessTokens = new Set<string>();
  readonly revoked: string[] = [];
  refreshToken = 'refresh-1';
  /** The next request to this path answers 429 once (Retry-After: 1). */
  rateLimitOnce = new Set<string>();
  /** Refresh grants answer 401 while set. */
  refuseRefresh = false;
  /** Access tokens last this long (Square: 30 days). */
  tokenLifetimeMs = 30 * 24 * 3600_000;
  now: () => number = () => Date.now();
  private codes = new Map<string, string>();
  private seq = 0;
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = bodyServer((req, text, res) => {
      const body = text === '' ? undefined : JSON.parse(text);
      const path = (req.url ?? '').split('?')[0]!;
      this.calls.push({ method: req.method ?? '', path, body, authorization: req.headers.authorization });
      const json = (status: number, b: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(b));
      const error = (status: number, code: string, detail: string) =>
        json(status, { errors: [{ category: status === 429 ? 'RATE_LIMIT_ERROR' : 'INVALID_REQUEST_ERROR', code, detail }] });
      if (this.rateLimitOnce.delete(`${req.method} ${path}`))
        return json(429, { errors: [{ category: 'RATE_LIMIT_ERROR', code: 'RATE_LIMITED', detail: 'slow down' }] }, { 'retry-after': '1' });
      const bearer = req.headers.authorization?.replace(/^Bearer /, '');
      const authed = bearer !== undefined && this.accessTokens.has(bearer);
      if (req.method === 'POST' && path === '/oauth2/token') return this.token(body, json, error);
      if (req.method === 'POST' && path === '/oauth2/revoke') {
        if (req.headers.authorization !== `Client ${FakeSquare.APP_SECRET}`) return error(401, 'UNAUTHORIZED', 'bad client secret');
        this.revoked.push(body.access_token);
        this.accessTokens.delete(body.access_token);
        return json(200, { success: true });
      }
      if (!authed) return error(401, 'UNAUTHORIZED', 'This request could not be authorized.');
      if (req.method === 'GET' && path.startsWith('/v2/merchants/'))
        return json(200, {
          merchant: { id: path.slice('/v2/merchants/'.length), business_name: 'Corner Café', country: 'GB', status: 'ACTIVE' },
        });
      if (req.method === 'GET' && path === '/v2/locations') return json(200, { locations: this.locations });
      const m = /^\/v2\/orders\/([^/]+)$/.exec(path);
      if (m !== null) {
        const order = this.orders.get(decodeURIComponent(m[1]!));
        if (order === undefined) return error(404, 'NOT_FOUND', 'no such order');
        if (req.method === 'GET') return json(200, { order: this.wire(order) });
        if (req.method === 'PUT') {
          const change = body.order;
          if (change.version !== order.version) return error(400, 'VERSION_MISMATCH', 'stale version');
          if (change.ticket_name !== undefined) order.ticket_name = change.ticket_name;
          for (const f of change.fulfillments ?? []) {
            const mine = order.fulfillments.find((x) => x.uid === f.uid);
            if (mine && f.state) mine.state = f.state;
          }
          order.version++;
          return json(200, { order: this.wire(order) });
        }
      }
      return error(404, 'NOT_FOUND', `${req.method} ${path}`);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';
    return this;
  }

  /** The env that points readybell's Square application at this fake. */
  env(publicUrl = 'http://localhost:3000'): Record<string, string> {
    return {
      SQUARE_APPLICATION_ID: FakeSquare.APP_ID,
      SQUARE_APPLICATION_SECRET: FakeSquare.APP_SECRET,
      SQUARE_WEBHOOK_SIGNATURE_KEY: FakeSquare.SIGNATURE_KEY,
      SQUARE_ENVIRONMENT: 'sandbox',
      SQUARE_BASE_URL: this.url,
      SQUARE_WEBHOOK_URL: `${publicUrl}/connectors/square/webhook`,
    };
  }

  private grant(json: (s: number, b: unknown) => unknown): unknown {
    const access = `EAAA-access-${++this.seq}`;
    this.accessTokens.add(access);
    return json(200, {
      access_token: access,
      token_type: 'bearer',
      expires_at: new Date(this.now() + this.tokenLifetimeMs).toISOString(),
      merchant_id: this.merchantId,
      refresh_token: this.refreshToken,
    });
  }

  private token(body: any, json: (s: number, b: unknown) => unknown, error: (s: number, c: string, d: string) => unknown): unknown {
    if (body?.client_id !== FakeSquare.APP_ID || body?.client_secret !== FakeSquare.APP_SECRET)
      return error(401, 'UNAUTHORIZED', 'bad client');
    if (body.grant_type === 'authorization_code') {
      if (!this.codes.has(body.code)) return error(400, 'INVALID_REQUEST', 'unknown code');
      this.codes.delete(body.code);
      return this.grant(json);
    }
    if (body.grant_type === 'refresh_token') {
      if (this.refuseRefresh || body.refresh_token !== this.refreshToken)
        return error(401, 'UNAUTHORIZED', 'The refresh token was revoked.');
      return this.grant(json);
    }
    return error(400, 'INVALID_REQUEST', 'grant_type');
  }

  /**
   * Square's authorize page: checks the URL readybell built, and answers where Square sends the
   * browser back: the redirect URL with a code and the state, or with error=access_denied.
   */
  authorize(authorizeUrl: string, decline = false): { redirect: URL; params: URLSearchParams } {
    const u = new URL(authorizeUrl);
    if (u.origin !== this.url || u.pathname !== '/oauth2/authorize') throw new Error(`not the fake's authorize page: ${authorizeUrl}`);
    const params = u.searchParams;
    const redirect = new URL(params.get('redirect_uri')!);
    redirect.searchParams.set('state', params.get('state')!);
    if (decline) {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('error_description', 'user denied');
    } else {
      const code = `sq0cgp-${randomUUID()}`;
      this.codes.set(code, params.get('state')!);
      redirect.searchParams.set('code', code);
      redirect.searchParams.set('response_type', 'code');
    }
    return { redirect, params };
  }

  addOrder(o: Partial<FakeOrder> & { phone?: string } = {}): FakeOrder {
    const order: FakeOrder = {
      id: o.id ?? `ORD${randomUUID().replace(/-/g, '').slice(0, 22).toUpperCase()}`,
      location_id: o.location_id ?? 'LMAIN0001',
      version: o.version ?? 1,
      state: o.state ?? 'OPEN',
      fulfillments: o.fulfillments ?? [{ uid: 'FUL-1', type: 'PICKUP', state: 'PROPOSED', ...(o.phone ? { phone: o.phone } : {}) }],
    };
    this.orders.set(order.id, order);
    return order;
  }

  /** A fulfillment changed at Square (the POS, the kitchen display): its state, and the order's version. */
  setFulfillment(orderId: string, state: string): void {
    const order = this.orders.get(orderId)!;
    order.fulfillments[0]!.state = state;
    if (state === 'COMPLETED') order.state = 'COMPLETED';
    if (state === 'CANCELED') order.state = 'CANCELED';
    order.version++;
  }

  /** The order as Square's API answers it. */
  private wire(o: FakeOrder): unknown {
    return {
      id: o.id,
      location_id: o.location_id,
      version: o.version,
      state: o.state,
      ...(o.ticket_name === undefined ? {} : { ticket_name: o.ticket_name }),
      fulfillments: o.fulfillments.map((f) => ({
        uid: f.uid,
        type: f.type,
        state: f.state,
        pickup_details: { recipient: { display_name: 'Sam', ...(f.phone ? { phone_number: f.phone } : {}) }, schedule_type: 'ASAP' },
      })),
    };
  }

  /**
   * A notification as Square sends it (developer.squareup.com webhooks reference: order.created,
   * order.updated, order.fulfillment.updated), with its x-square-hmacsha256-signature computed
   * here: base64(HMAC-SHA256(signature key, notification URL + body)).
   */
  notification(
    type: 'order.created' | 'order.updated' | 'order.fulfillment.updated',
    order: FakeOrder,
    opts: { eventId?: string; merchantId?: string; url?: string; key?: string } = {},
  ): { body: string; signature: string; eventId: string } {
    const eventId = opts.eventId ?? randomUUID();
    const at = new Date(this.now()).toISOString();
    const member = {
      'order.created': 'order_created',
      'order.updated': 'order_updated',
      'order.fulfillment.updated': 'order_fulfillment_updated',
    }[type];
    const inner: Record<string, unknown> = {
      order_id: order.id,
      location_id: order.location_id,
      state: order.state,
      version: order.version,
      created_at: at,
    };
    if (type !== 'order.created') inner.updated_at = at;
    if (type === 'order.fulfillment.updated')
      inner.fulfillment_update = order.fulfillments.map((f) => ({ fulfillment_uid: f.uid, old_state: 'PROPOSED', new_state: f.state }));
    const body = JSON.stringify({
      merchant_id: opts.merchantId ?? this.merchantId,
      type,
      event_id: eventId,
      created_at: at,
      data: { type: member, id: order.id, object: { [member]: inner } },
    });
    const url = opts.url ?? 'http://localhost:3000/connectors/square/webhook';
    const signature = createHmac('sha256', opts.key ?? FakeSquare.SIGNATURE_KEY)
      .update(url + body)
      .digest('base64');
    return { body, signature, eventId };
  }

  callsTo(method: string, prefix: string): SquareCall[] {
    return this.calls.filter((c) => c.method === method && c.path.startsWith(prefix));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
