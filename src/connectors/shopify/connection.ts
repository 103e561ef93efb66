// The branch's Shopify connection as its owner manages it: read it, list the shop's locations,
// choose the location, queue and mark_prepared, disconnect. Shopify is asked before any
// transaction (a call to Shopify never holds the store's writer).
import type { Action, Ctx } from '../../core/ctx.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { listQueues } from '../../store/tenancy.ts';
import { requireConnectorOwner } from '../oauth-flow.ts';
import { accessTokenOf, presentConnection, type ShopifyConnection, shopifyApi } from './connection-state.ts';
import { ShopifyCallError, type ShopifyLocation } from './shopify-api.ts';
import { eraseConnection, getShopifyConnection, saveSettings } from './store.ts';

const requireOwner = (ctx: Ctx): void => requireConnectorOwner(ctx, 'Shopify');

export async function readShopifyConnection(ctx: Ctx): Promise<ShopifyConnection> {
  requireOwner(ctx);
  return presentConnection(ctx.services.config.shopify, await getShopifyConnection(ctx.services.db, ctx.branchId));
}

function shopifyTrouble(err: unknown): never {
  if (!(err instanceof ShopifyCallError)) throw err;
  if (err.status === 401 || err.status === 403)
    throw new AppError('conflict', "Shopify refused this connection's token (the app was uninstalled?): disconnect and connect again.");
  throw new AppError('unavailable', `Shopify did not answer as expected (${err.status ?? 'no answer'}); try again shortly.`, {
    retry_after: 5,
  });
}

export async function listShopifyLocations(ctx: Ctx): Promise<ShopifyLocation[]> {
  requireOwner(ctx);
  const row = await getShopifyConnection(ctx.services.db, ctx.branchId);
  if (ctx.services.config.shopify === null || row?.accessToken == null) return [];
  return shopifyApi(ctx.services).locations(row.shop, accessTokenOf(ctx.services, row)).catch(shopifyTrouble);
}

export type ShopifySettingsInput = { location_id?: string; queue?: string | null; mark_prepared?: boolean };
export type ShopifySettings = { locationId: string | null; locationName: string | null; queue: string | null; markPrepared: boolean };

/** The PATCH's settings, checked: the location one of the shop's active locations (asked now), the queue one of the branch's. */
export async function checkShopifySettings(ctx: Ctx, input: ShopifySettingsInput): Promise<ShopifySettings> {
  requireOwner(ctx);
  const row = await getShopifyConnection(ctx.services.db, ctx.branchId);
  const token = accessTokenOf(ctx.services, row);
  let location = row!.locationId === null ? null : { id: row!.locationId, name: row!.locationName ?? row!.locationId };
  if (input.location_id !== undefined) {
    const found = (await shopifyApi(ctx.services).locations(row!.shop, token).catch(shopifyTrouble)).find(
      (l) => l.id === input.location_id && l.active,
    );
    if (found === undefined) throw invalid('/location_id', "location_id must be one of the shop's active locations.");
    location = { id: found.id, name: found.name };
  }
  let queue = row!.queue;
  if (input.queue !== undefined) {
    if (input.queue !== null && !(await listQueues(ctx.services.db, ctx.branchId)).some((q) => q.name === input.queue))
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

export const saveShopifySettings: Action<ShopifySettings, ShopifyConnection> = async ({ ctx, input }) => {
  requireOwner(ctx);
  accessTokenOf(ctx.services, await getShopifyConnection(ctx.tx, ctx.branchId)); // disconnected meanwhile: nothing to save
  await saveSettings(ctx.tx, ctx.branchId, input, ctx.services.clock.now());
  return presentConnection(ctx.services.config.shopify, await getShopifyConnection(ctx.tx, ctx.branchId));
};

/** Erases the connection and its token here; the owner removes the app in Shopify's admin (docs/shopify-owner.md). */
export const eraseShopifyConnection: Action<undefined, ShopifyConnection> = async ({ ctx }) => {
  requireOwner(ctx);
  await eraseConnection(ctx.tx, ctx.branchId);
  return presentConnection(ctx.services.config.shopify, undefined);
};
