// What the connector keeps of a branch's Square connection and how it is shown: the wire form of
// GET /v1/connectors/square (its status derived from the row), the mode its tickets are made in,
// and the tokens, sealed at rest like webhook secrets (domain/secret-box.ts, WEBHOOK_SECRETS_KEY)
// with the branch and the token's kind as associated data, so a sealed token copied onto another
// row or column does not open.
import type { Services } from '../../core/ctx.ts';
import type { Mode } from '../../core/tenancy.ts';
import { AppError } from '../../domain/errors.ts';
import { SecretBox } from '../../domain/secret-box.ts';
import type { SquareConnectionRow } from '../../store/square-connections.ts';
import type { SquareConfig } from '../../core/config.ts';
import { SquareApi } from './square-api.ts';

export type SquareStatus = 'not_configured' | 'not_connected' | 'choose_location' | 'connected' | 'refresh_failed';

export type SquareConnection = {
  object: 'square_connection';
  status: SquareStatus;
  environment: 'sandbox' | 'production' | null;
  merchant_id: string | null;
  merchant_name: string | null;
  location: { id: string; name: string } | null;
  queue: string | null;
  mark_prepared: boolean;
  connected_at: string | null;
  token_expires_at: string | null;
  last_error: string | null;
};

/**
 * Square's sandbox makes test-mode tickets and production live ones (decision 0073): a sandbox
 * order never rings a real customer nor counts in live figures.
 */
export const modeOf = (environment: 'sandbox' | 'production'): Mode => (environment === 'production' ? 'live' : 'test');

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

export function statusOf(config: SquareConfig | null, row: SquareConnectionRow | undefined): SquareStatus {
  if (config === null) return 'not_configured';
  if (row === undefined || row.accessToken === null) return 'not_connected';
  if (row.refreshFailedAt !== null) return 'refresh_failed';
  return row.locationId === null ? 'choose_location' : 'connected';
}

export function presentConnection(config: SquareConfig | null, row: SquareConnectionRow | undefined): SquareConnection {
  const status = statusOf(config, row);
  const connected = row !== undefined && row.accessToken !== null;
  return {
    object: 'square_connection',
    status,
    environment: connected ? row.environment : (config?.environment ?? null),
    merchant_id: connected ? row.merchantId : null,
    merchant_name: connected ? row.merchantName : null,
    location: connected && row.locationId !== null ? { id: row.locationId, name: row.locationName ?? row.locationId } : null,
    queue: connected ? row.queue : null,
    mark_prepared: connected ? row.markPrepared : false,
    connected_at: connected ? iso(row.connectedAt) : null,
    token_expires_at: connected ? iso(row.tokenExpiresAt) : null,
    last_error: row?.lastError ?? null,
  };
}

const box = (services: Services): SecretBox => new SecretBox(services.config.webhookSecretsKey);
const aad = (branchId: string, kind: 'access' | 'refresh'): string => `square:${branchId}:${kind}`;

export const sealToken = (services: Services, branchId: string, kind: 'access' | 'refresh', token: string): string =>
  box(services).seal(token, aad(branchId, kind));

export const openToken = (services: Services, branchId: string, kind: 'access' | 'refresh', sealed: string): string =>
  box(services).open(sealed, aad(branchId, kind));

/** The operator's Square application, or the problem an owner gets when there is none. */
export function squareConfigOf(services: Services): SquareConfig {
  const config = services.config.square;
  if (config === null)
    throw new AppError('conflict', 'This readybell has no Square application configured (SQUARE_APPLICATION_ID): ask its operator.');
  return config;
}

export const squareApi = (services: Services): SquareApi => new SquareApi(squareConfigOf(services));

/** The branch's access token, opened; a problem when the branch is not connected. */
export function accessTokenOf(services: Services, row: SquareConnectionRow | undefined): string {
  if (row === undefined || row.accessToken === null)
    throw new AppError('conflict', 'This branch is not connected to Square: connect it first (POST /v1/connectors/square/authorize).');
  return openToken(services, row.branchId, 'access', row.accessToken);
}
