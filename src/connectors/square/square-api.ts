// The calls the connector makes to Square, through the official SDK (`square`). The SDK retries
// 408, 429 and 5xx itself, waiting as Retry-After says (maxRetries below); what is still refused
// after that surfaces as a SquareCallError, and the job that made the call is tried again later
// (its retryAfterMs when Square gave one). The SDK is loaded on first use: it takes most of a
// second to load, and a readybell without a Square application never pays for it.
import type { SquareConfig } from '../../core/config.ts';

type Sdk = typeof import('square');
let sdk: Promise<Sdk> | null = null;
const loadSdk = (): Promise<Sdk> => {
  sdk ??= import('square');
  return sdk;
};

/** The scopes the connector asks for, and no more (issue 29): the merchant's name, its orders read and written. */
export const SQUARE_SCOPES = ['MERCHANT_PROFILE_READ', 'ORDERS_READ', 'ORDERS_WRITE'] as const;

const HOSTS = { sandbox: 'https://connect.squareupsandbox.com', production: 'https://connect.squareup.com' } as const;

/** Square's host for this application: its environment's, or the override (tests). */
export const squareHost = (c: SquareConfig): string => c.baseUrl ?? HOSTS[c.environment];

const SDK_RETRIES = 2;
const SDK_TIMEOUT_S = 10;

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

export type TokenGrant = { accessToken: string; refreshToken: string | null; expiresAt: number | null; merchantId: string | null };
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

async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  const { SquareError } = await loadSdk();
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof SquareError)) throw new SquareCallError(`${what}: ${(err as Error).message}`, null, null, null);
    const code = err.errors[0]?.code ?? null;
    const retryAfter = Number(err.rawResponse?.headers.get('retry-after'));
    // Square's own messages describe the request, never the token; they are safe to keep.
    const detail = err.errors[0]?.detail ?? err.message;
    throw new SquareCallError(
      `${what}: ${err.statusCode ?? 'no answer'} ${code ?? ''} ${detail}`.replace(/\s+/g, ' ').trim(),
      err.statusCode ?? null,
      code,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null,
    );
  }
}

const time = (iso: string | null | undefined): number | null => {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? t : null;
};

export class SquareApi {
  private readonly config: SquareConfig;

  constructor(config: SquareConfig) {
    this.config = config;
  }

  /**
   * A client authenticated with the merchant's access token; without one, with no credentials
   * (ObtainToken carries the secret in its body), or with the application's secret (`Client …`,
   * which RevokeToken requires).
   */
  private async client(auth?: { token: string } | { applicationSecret: true }) {
    const { SquareClient } = await loadSdk();
    const base = { baseUrl: squareHost(this.config), maxRetries: SDK_RETRIES, timeoutInSeconds: SDK_TIMEOUT_S };
    if (auth === undefined) return new SquareClient({ ...base, auth: false });
    if ('token' in auth) return new SquareClient({ ...base, token: auth.token });
    const header = { Authorization: `Client ${this.config.applicationSecret}` };
    return new SquareClient({ ...base, auth: async () => ({ headers: header }) });
  }

  /** The OAuth authorize page's URL for `state` (the code flow: the secret stays on this server). */
  authorizeUrl(state: string, redirectUri: string): string {
    const u = new URL('/oauth2/authorize', squareHost(this.config));
    u.searchParams.set('client_id', this.config.applicationId);
    u.searchParams.set('scope', SQUARE_SCOPES.join(' '));
    u.searchParams.set('session', 'false');
    u.searchParams.set('state', state);
    u.searchParams.set('redirect_uri', redirectUri);
    return u.toString();
  }

  private async token(grant: { code: string; redirectUri: string } | { refreshToken: string }): Promise<TokenGrant> {
    const c = await this.client();
    const base = { clientId: this.config.applicationId, clientSecret: this.config.applicationSecret };
    const r = await call('ObtainToken', () =>
      'code' in grant
        ? c.oAuth.obtainToken({ ...base, grantType: 'authorization_code', code: grant.code, redirectUri: grant.redirectUri })
        : c.oAuth.obtainToken({ ...base, grantType: 'refresh_token', refreshToken: grant.refreshToken }),
    );
    if (!r.accessToken) throw new SquareCallError('ObtainToken: no access token in the answer', null, null, null);
    return {
      accessToken: r.accessToken,
      refreshToken: r.refreshToken ?? null,
      expiresAt: time(r.expiresAt),
      merchantId: r.merchantId ?? null,
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
    const c = await this.client({ applicationSecret: true });
    await call('RevokeToken', () => c.oAuth.revokeToken({ clientId: this.config.applicationId, accessToken }));
  }

  async merchantName(accessToken: string, merchantId: string): Promise<string | null> {
    const c = await this.client({ token: accessToken });
    const r = await call('RetrieveMerchant', () => c.merchants.get({ merchantId }));
    return r.merchant?.businessName ?? null;
  }

  async locations(accessToken: string): Promise<SquareLocation[]> {
    const c = await this.client({ token: accessToken });
    const r = await call('ListLocations', () => c.locations.list());
    return (r.locations ?? []).flatMap((l) =>
      l.id
        ? [
            {
              id: l.id,
              name: l.name ?? l.id,
              address:
                [l.address?.addressLine1, l.address?.locality, l.address?.postalCode].filter((p): p is string => !!p).join(', ') || null,
              status: l.status ?? 'ACTIVE',
            },
          ]
        : [],
    );
  }

  async getOrder(accessToken: string, orderId: string): Promise<SquareOrder | null> {
    const c = await this.client({ token: accessToken });
    const r = await call('RetrieveOrder', () => c.orders.get({ orderId })).catch((err: unknown) => {
      if (err instanceof SquareCallError && err.status === 404) return null;
      throw err;
    });
    return r?.order ? toOrder(r.order) : null;
  }

  /** A sparse update with the order's version: Square refuses it (VERSION_MISMATCH) if the order changed meanwhile. */
  async updateOrder(accessToken: string, orderId: string, change: OrderChange, idempotencyKey: string): Promise<SquareOrder> {
    const c = await this.client({ token: accessToken });
    const r = await call('UpdateOrder', () =>
      c.orders.update({
        orderId,
        idempotencyKey,
        order: {
          locationId: change.locationId,
          ...(change.version === null ? {} : { version: change.version }),
          ...(change.ticketName === undefined ? {} : { ticketName: change.ticketName }),
          ...(change.fulfillment === undefined
            ? {}
            : { fulfillments: [{ uid: change.fulfillment.uid, state: change.fulfillment.state as 'PREPARED' }] }),
        },
      }),
    );
    if (!r.order) throw new SquareCallError('UpdateOrder: no order in the answer', null, null, null);
    return toOrder(r.order);
  }
}

type SdkOrder = NonNullable<Awaited<ReturnType<InstanceType<Sdk['SquareClient']>['orders']['get']>>['order']>;

function toOrder(o: SdkOrder): SquareOrder {
  return {
    id: o.id ?? '',
    locationId: o.locationId,
    version: o.version ?? null,
    state: o.state ?? 'OPEN',
    ticketName: o.ticketName ?? null,
    fulfillments: (o.fulfillments ?? []).map((f) => ({
      uid: f.uid ?? '',
      type: f.type ?? '',
      state: f.state ?? '',
      phone: f.pickupDetails?.recipient?.phoneNumber ?? null,
    })),
  };
}
