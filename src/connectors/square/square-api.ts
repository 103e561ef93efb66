// The calls the connector makes to Square: seven REST calls on `fetch`, typed here for the fields
// the connector reads (decision 0077: Square's SDK weighed 70 MB of every release for these).
// Like Square's SDK, a call is retried twice on 408, 429 and 5xx, waiting as Retry-After says (at
// most 10 s) or backing off; what is still refused after that surfaces as a SquareCallError, and the
// job that made the call is tried again later (its retryAfterMs when Square gave one).
import type { SquareConfig } from '../../core/config.ts';
import type { TokenGrant } from '../port.ts';

/** The scopes the connector asks for, and no more (issue 29): the merchant's name, its orders read and written. */
export const SQUARE_SCOPES = ['MERCHANT_PROFILE_READ', 'ORDERS_READ', 'ORDERS_WRITE'] as const;

/** The API version the calls below are written against (Square dates its versions). */
export const SQUARE_VERSION = '2025-10-16';

const HOSTS = { sandbox: 'https://connect.squareupsandbox.com', production: 'https://connect.squareup.com' } as const;

/** Square's host for this application: its environment's, or the override (tests). */
export const squareHost = (c: SquareConfig): string => c.baseUrl ?? HOSTS[c.environment];

const RETRIES = 2;
const TIMEOUT_MS = 10_000;
const MAX_WAIT_MS = 10_000;
const RETRIED = new Set([408, 429, 500, 502, 503, 504]);

export class SquareCallError extends Error {
  readonly status: number | null;
  /** Square's first error code (VERSION_MISMATCH, UNAUTHORIZED, …), or null. */
  readonly code: string | null;
  readonly retryAfterMs: number | null;
  constructor(message: string, status: number | null, code: string | null, retryAfterMs: number | null) {
    super(message);
    this.name = 'SquareCallError';
    this.status = status;
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }
}

export type SquareLocation = { id: string; name: string; address: string | null; status: string };
export type SquareFulfillment = { uid: string; type: string; state: string; phone: string | null };
export type SquareOrder = {
  id: string;
  locationId: string;
  version: number | null;
  state: string;
  ticketName: string | null;
  fulfillments: SquareFulfillment[];
};
export type OrderChange = { locationId: string; version: number | null; ticketName?: string; fulfillment?: { uid: string; state: string } };

// Square's wire forms, as far as the connector reads them (snake_case, every field optional).
type WireError = { errors?: Array<{ code?: string; detail?: string }> };
type WireToken = { access_token?: string; refresh_token?: string; expires_at?: string; merchant_id?: string };
type WireLocation = {
  id?: string;
  name?: string;
  status?: string;
  address?: { address_line_1?: string; locality?: string; postal_code?: string };
};
type WireOrder = {
  id?: string;
  location_id?: string;
  version?: number;
  state?: string;
  ticket_name?: string;
  fulfillments?: Array<{ uid?: string; type?: string; state?: string; pickup_details?: { recipient?: { phone_number?: string } } }>;
};

type Auth = { bearer: string } | { client: string } | null;

const time = (iso: string | null | undefined): number | null => {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? t : null;
};

const retryAfterOf = (res: Response): number | null => {
  const s = Number(res.headers.get('retry-after'));
  return Number.isFinite(s) && s > 0 ? s * 1000 : null;
};

/** An answer's JSON; a proxy's HTML error page reads as no fields. */
const parseJson = (text: string): unknown => {
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    return {};
  }
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class SquareApi {
  private readonly config: SquareConfig;

  constructor(config: SquareConfig) {
    this.config = config;
  }

  /** One call: JSON in and out, retried as the SDK did; Square's refusal as a SquareCallError. */
  private async call<T>(what: string, method: string, path: string, auth: Auth, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'square-version': SQUARE_VERSION };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (auth !== null) headers.authorization = 'bearer' in auth ? `Bearer ${auth.bearer}` : `Client ${auth.client}`;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${squareHost(this.config)}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        if (attempt < RETRIES) {
          await sleep(500 * 2 ** attempt);
          continue;
        }
        throw new SquareCallError(`${what}: ${(err as Error).message}`, null, null, null);
      }
      const text = await res.text();
      const json = parseJson(text) as T & WireError;
      if (res.ok) return json;
      const retryAfter = retryAfterOf(res);
      if (RETRIED.has(res.status) && attempt < RETRIES) {
        await sleep(Math.min(retryAfter ?? 500 * 2 ** attempt, MAX_WAIT_MS));
        continue;
      }
      const first = json.errors?.[0];
      // Square's own messages describe the request, never the token; they are safe to keep.
      throw new SquareCallError(
        `${what}: ${res.status} ${first?.code ?? ''} ${first?.detail ?? res.statusText}`.replace(/\s+/g, ' ').trim(),
        res.status,
        first?.code ?? null,
        retryAfter,
      );
    }
  }

  private async token(grant: { code: string; redirectUri: string } | { refreshToken: string }): Promise<TokenGrant> {
    const base = { client_id: this.config.applicationId, client_secret: this.config.applicationSecret };
    const body =
      'code' in grant
        ? { ...base, grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri }
        : { ...base, grant_type: 'refresh_token', refresh_token: grant.refreshToken };
    // ObtainToken carries the application's secret in its body, and no Authorization.
    const r = await this.call<WireToken>('ObtainToken', 'POST', '/oauth2/token', null, body);
    if (!r.access_token) throw new SquareCallError('ObtainToken: no access token in the answer', null, null, null);
    return {
      accessToken: r.access_token,
      refreshToken: r.refresh_token ?? null,
      expiresAt: time(r.expires_at),
      account: r.merchant_id ?? null,
    };
  }

  exchangeCode(code: string, redirectUri: string): Promise<TokenGrant> {
    return this.token({ code, redirectUri });
  }

  refresh(refreshToken: string): Promise<TokenGrant> {
    return this.token({ refreshToken });
  }

  /** RevokeToken authenticates with the application's secret (`Authorization: Client …`), not the token. */
  async revoke(accessToken: string): Promise<void> {
    await this.call(
      'RevokeToken',
      'POST',
      '/oauth2/revoke',
      { client: this.config.applicationSecret },
      {
        client_id: this.config.applicationId,
        access_token: accessToken,
      },
    );
  }

  async merchantName(accessToken: string, merchantId: string): Promise<string | null> {
    const r = await this.call<{ merchant?: { business_name?: string } }>(
      'RetrieveMerchant',
      'GET',
      `/v2/merchants/${encodeURIComponent(merchantId)}`,
      { bearer: accessToken },
    );
    return r.merchant?.business_name ?? null;
  }

  async locations(accessToken: string): Promise<SquareLocation[]> {
    const r = await this.call<{ locations?: WireLocation[] }>('ListLocations', 'GET', '/v2/locations', { bearer: accessToken });
    return (r.locations ?? []).flatMap((l) =>
      l.id
        ? [
            {
              id: l.id,
              name: l.name ?? l.id,
              address:
                [l.address?.address_line_1, l.address?.locality, l.address?.postal_code].filter((p): p is string => !!p).join(', ') || null,
              status: l.status ?? 'ACTIVE',
            },
          ]
        : [],
    );
  }

  async getOrder(accessToken: string, orderId: string): Promise<SquareOrder | null> {
    const r = await this.call<{ order?: WireOrder }>('RetrieveOrder', 'GET', `/v2/orders/${encodeURIComponent(orderId)}`, {
      bearer: accessToken,
    }).catch((err: unknown) => {
      if (err instanceof SquareCallError && err.status === 404) return null;
      throw err;
    });
    return r?.order ? toOrder(r.order) : null;
  }

  /** A sparse update with the order's version: Square refuses it (VERSION_MISMATCH) if the order changed meanwhile. */
  async updateOrder(accessToken: string, orderId: string, change: OrderChange, idempotencyKey: string): Promise<SquareOrder> {
    const order = {
      location_id: change.locationId,
      ...(change.version === null ? {} : { version: change.version }),
      ...(change.ticketName === undefined ? {} : { ticket_name: change.ticketName }),
      ...(change.fulfillment === undefined ? {} : { fulfillments: [{ uid: change.fulfillment.uid, state: change.fulfillment.state }] }),
    };
    const r = await this.call<{ order?: WireOrder }>(
      'UpdateOrder',
      'PUT',
      `/v2/orders/${encodeURIComponent(orderId)}`,
      { bearer: accessToken },
      { order, idempotency_key: idempotencyKey },
    );
    if (!r.order) throw new SquareCallError('UpdateOrder: no order in the answer', null, null, null);
    return toOrder(r.order);
  }
}

function toOrder(o: WireOrder): SquareOrder {
  return {
    id: o.id ?? '',
    locationId: o.location_id ?? '',
    version: o.version ?? null,
    state: o.state ?? 'OPEN',
    ticketName: o.ticket_name ?? null,
    fulfillments: (o.fulfillments ?? []).map((f) => ({
      uid: f.uid ?? '',
      type: f.type ?? '',
      state: f.state ?? '',
      phone: f.pickup_details?.recipient?.phone_number ?? null,
    })),
  };
}
