// Square's access tokens last 30 days. The connector's refresh (a scheduled job in the job queue,
// hourly and once when a node starts: connectors/module.ts) looks for tokens with less than a week
// left and refreshes them (the code flow's refresh token stays the same, so two nodes refreshing
// at once both succeed). A refresh Square refuses is never silent: the connection's status becomes
// refresh_failed with Square's message as last_error (the staff page's Square screen shows it), the
// count shows in /readyz, and a warning is logged; the next success clears it.
import type { Services } from '../../core/ctx.ts';
import { countRefreshFailures, listExpiringConnections, saveRefreshed, saveRefreshFailure } from '../../store/square-connections.ts';
import { openToken, sealToken } from './connection-state.ts';
import { SquareApi } from './square-api.ts';

export const REFRESH_BEFORE_MS = 7 * 24 * 3600_000;
export const REFRESH_EVERY_MS = 3600_000;
const BATCH = 100;

/** Refreshes the tokens that run out within a week; answers how many were refreshed and how many failed. */
export async function refreshSquareTokens(services: Services): Promise<{ refreshed: number; failed: number }> {
  const { db, clock, log, config } = services;
  if (config.square === null) return { refreshed: 0, failed: 0 };
  const api = new SquareApi(config.square);
  const due = await listExpiringConnections(db, clock.now() + REFRESH_BEFORE_MS, BATCH);
  let refreshed = 0;
  let failed = 0;
  for (const row of due) {
    try {
      const grant = await api.refresh(openToken(services, row.branchId, 'refresh', row.refreshToken!));
      const tokens = {
        accessToken: sealToken(services, row.branchId, 'access', grant.accessToken),
        refreshToken: grant.refreshToken === null ? null : sealToken(services, row.branchId, 'refresh', grant.refreshToken),
        expiresAt: grant.expiresAt,
      };
      await db.write((tx) => saveRefreshed(tx, row.branchId, tokens, clock.now()));
      refreshed++;
    } catch (err) {
      const message = (err as Error).message.slice(0, 300);
      log.warn({ branch: row.branchId, err: message }, 'Square token refresh refused');
      await db.write((tx) => saveRefreshFailure(tx, row.branchId, `Token refresh failed: ${message}`, clock.now()));
      failed++;
    }
  }
  return { refreshed, failed };
}

/** For /readyz: how many connections lost their refresh (no tenant named). */
export const squareHealth = async (services: Services): Promise<Record<string, unknown>> => ({
  refresh_failed: await countRefreshFailures(services.db),
});
