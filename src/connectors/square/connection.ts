// The branch's Square connection as its owner manages it (the staff page's Square screen): read
// it, list the merchant's locations, choose the location, queue and mark_prepared, disconnect.
// Square is asked before any transaction (a call to Square never holds the store's writer).
import type { Action, Ctx } from '../../core/ctx.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { listQueues } from '../../store/tenancy.ts';
import { eraseConnection, getSquareConnection, saveSettings } from '../../store/square-connections.ts';
import { accessTokenOf, openToken, presentConnection, squareApi, type SquareConnection } from './connection-state.ts';
import { requireSquareOwner } from './oauth.ts';
import { SquareCallError, type SquareLocation } from './square-api.ts';

export async function readSquareConnection(ctx: Ctx): Promise<SquareConnection> {
  requireSquareOwner(ctx);
  return presentConnection(ctx.services.config.square, await getSquareConnection(ctx.services.db, ctx.branchId));
}

/** Square's refusal as the owner's problem: 502-like trouble is `unavailable`, a revoked token a conflict. */
function squareTrouble(err: unknown): never {
  if (!(err instanceof SquareCallError)) throw err;
  if (err.status === 401 || err.status === 403)
    throw new AppError('conflict', "Square refused this connection's token (revoked or expired): disconnect and connect again.");
  throw new AppError('unavailable', `Square did not answer as expected (${err.status ?? 'no answer'}); try again shortly.`, {
    retry_after: Math.ceil((err.retryAfterMs ?? 5000) / 1000),
  });
}

/** The merchant's locations; none while the branch is not connected (there is no merchant to ask). */
export async function listSquareLocations(ctx: Ctx): Promise<SquareLocation[]> {
  requireSquareOwner(ctx);
  const row = await getSquareConnection(ctx.services.db, ctx.branchId);
  if (ctx.services.config.square === null || row?.accessToken == null) return [];
  return squareApi(ctx.services).locations(accessTokenOf(ctx.services, row)).catch(squareTrouble);
}

export type SquareSettingsInput = { location_id?: string; queue?: string | null; mark_prepared?: boolean };
export type SquareSettings = { locationId: string | null; locationName: string | null; queue: string | null; markPrepared: boolean };

/**
 * The settings a PATCH asks for, checked: the location must be one of the merchant's ACTIVE
 * locations (asked of Square now, before the write), the queue one of the branch's.
 */
export async function checkSquareSettings(ctx: Ctx, input: SquareSettingsInput): Promise<SquareSettings> {
  requireSquareOwner(ctx);
  const { db } = ctx.services;
  const row = await getSquareConnection(db, ctx.branchId);
  const token = accessTokenOf(ctx.services, row);
  let location = row!.locationId === null ? null : { id: row!.locationId, name: row!.locationName ?? row!.locationId };
  if (input.location_id !== undefined) {
    const found = (await squareApi(ctx.services).locations(token).catch(squareTrouble)).find(
      (l) => l.id === input.location_id && l.status === 'ACTIVE',
    );
    if (found === undefined) throw invalid('/location_id', "location_id must be one of the Square merchant's active locations.");
    location = { id: found.id, name: found.name };
  }
  let queue = row!.queue;
  if (input.queue !== undefined) {
    if (input.queue !== null && !(await listQueues(db, ctx.branchId)).some((q) => q.name === input.queue))
      throw invalid('/queue', "queue must be one of the branch's queues (GET /v1/queues).");
    queue = input.queue;
  }
  return {
    locationId: location?.id ?? null,
    locationName: location?.name ?? null,
    queue,
    markPrepared: input.mark_prepared ?? row!.markPrepared,
  };
}

/** Saves checked settings (the write's transaction); choosing a location completes the connection. */
export const saveSquareSettings: Action<SquareSettings, SquareConnection> = async ({ ctx, input }) => {
  requireSquareOwner(ctx);
  const row = await getSquareConnection(ctx.tx, ctx.branchId);
  accessTokenOf(ctx.services, row); // disconnected meanwhile: nothing to save
  await saveSettings(ctx.tx, ctx.branchId, input, ctx.services.clock.now());
  return presentConnection(ctx.services.config.square, await getSquareConnection(ctx.tx, ctx.branchId));
};

/**
 * Revokes the merchant's tokens at Square, before the connection is erased here. A token Square
 * already forgot (401/404) is as good as revoked; any other failure is the owner's problem and
 * keeps the connection, so no live token is left behind at Square with nothing here to revoke it.
 */
export async function revokeSquare(ctx: Ctx): Promise<void> {
  requireSquareOwner(ctx);
  const row = await getSquareConnection(ctx.services.db, ctx.branchId);
  if (row === undefined || row.accessToken === null) return;
  const token = openToken(ctx.services, row.branchId, 'access', row.accessToken);
  await squareApi(ctx.services)
    .revoke(token)
    .catch((err: unknown) => {
      if (err instanceof SquareCallError && (err.status === 401 || err.status === 404)) return;
      squareTrouble(err);
    });
}

/** Erases the connection and its tokens: later notifications for the merchant find no branch and are refused. */
export const eraseSquareConnection: Action<undefined, SquareConnection> = async ({ ctx }) => {
  requireSquareOwner(ctx);
  await eraseConnection(ctx.tx, ctx.branchId);
  ctx.services.log.info({ branch: ctx.branchId }, 'Square disconnected');
  return presentConnection(ctx.services.config.square, undefined);
};
