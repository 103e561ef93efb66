// Square's OAuth settings, as data for the shared flow (connectors/oauth-flow.ts): its authorize
// page, its scopes (issue 29: the merchant's name, its orders read and written, nothing else), and
// what a code becomes: the merchant and its tokens, sealed, on the branch's connection.
import type { Ctx, Services } from '../../core/ctx.ts';
import { requireConnectorOwner } from '../oauth-flow.ts';
import type { OAuthSettings } from '../port.ts';
import { saveConnected } from '../../store/square-connections.ts';
import { sealToken, squareApi, squareConfigOf } from './connection-state.ts';
import { SQUARE_SCOPES, SquareCallError, squareHost } from './square-api.ts';

/** The staff page's Square screen (agreed with the staff page: docs/decisions/0073). */
export const SQUARE_SCREEN = '/staff/#/settings/square';

/** The owner's own session (staff page only): API keys and other roles are refused. */
export const requireSquareOwner = (ctx: Ctx): void => requireConnectorOwner(ctx, 'Square');

async function connect(services: Services, branchId: string, code: string, redirectUri: string): Promise<string> {
  const api = squareApi(services);
  const grant = await api.exchangeCode(code, redirectUri);
  if (grant.account === null) throw new SquareCallError('ObtainToken: no merchant in the answer', null, null, null);
  const merchantId = grant.account;
  const merchantName = await api.merchantName(grant.accessToken, merchantId).catch(() => null);
  const tokens = {
    accessToken: sealToken(services, branchId, 'access', grant.accessToken),
    refreshToken: grant.refreshToken === null ? null : sealToken(services, branchId, 'refresh', grant.refreshToken),
    expiresAt: grant.expiresAt,
  };
  const environment = squareConfigOf(services).environment;
  await services.db.write((tx) =>
    saveConnected(tx, { branchId, environment, merchantId, merchantName, tokens, now: services.clock.now() }),
  );
  return merchantId;
}

export const SQUARE_OAUTH: OAuthSettings = {
  connector: 'square',
  authorizeUrl: (config) => (config.square === null ? null : `${squareHost(config.square)}/oauth2/authorize`),
  clientId: (config) => config.square?.applicationId ?? '',
  scopes: SQUARE_SCOPES,
  scopeSeparator: ' ',
  params: { session: 'false' },
  connect,
};
