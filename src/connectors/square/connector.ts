// The Square connector (decisions 0073, 0076): everything the app installs for it, as one value of
// the connector port. Nothing outside this folder names Square but the list of installed
// connectors (connectors/installed.ts) and Square's own table (store/square-connections.ts),
// contract (contract/square-schemas.ts) and configuration (domain/square-config.ts).
import { SquareConnectionSchema } from '../../contract/square-schemas.ts';
import type { Connector } from '../port.ts';
import { registerSquareRoutes } from './api-routes.ts';
import { SQUARE_PREPARED_JOB, squarePreparedJob, squareReadyHook } from './mark-prepared.ts';
import { receiveSquareNotification } from './notifications.ts';
import { SQUARE_OAUTH, SQUARE_SCREEN } from './oauth.ts';
import { SQUARE_ORDER_JOB, squareOrderJob } from './order-sync.ts';
import { REFRESH_EVERY_MS, refreshSquareTokens, squareHealth } from './token-refresh.ts';

export const squareConnector: Connector = {
  name: 'square',
  config: [
    'SQUARE_APPLICATION_ID',
    'SQUARE_APPLICATION_SECRET',
    'SQUARE_WEBHOOK_SIGNATURE_KEY',
    'SQUARE_ENVIRONMENT',
    'SQUARE_WEBHOOK_URL',
    'SQUARE_BASE_URL',
  ],
  configured: (config) => config.square !== null,
  oauth: SQUARE_OAUTH,
  webhook: (services, raw, headers) => {
    const signature = headers['x-square-hmacsha256-signature'];
    return receiveSquareNotification(services, raw, typeof signature === 'string' ? signature : undefined);
  },
  jobs: (registry) => void registry.set(SQUARE_ORDER_JOB, squareOrderJob).set(SQUARE_PREPARED_JOB, squarePreparedJob),
  onTicketChange: squareReadyHook,
  refreshTokens: refreshSquareTokens,
  refreshEveryMs: REFRESH_EVERY_MS,
  health: squareHealth,
  schemas: [SquareConnectionSchema],
  api: registerSquareRoutes,
  screen: SQUARE_SCREEN,
};
