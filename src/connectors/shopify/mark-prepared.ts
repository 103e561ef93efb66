// readybell's ready, told to Shopify: when the staff page (or a client through the API) marks a
// Shopify ticket ready, the connection's mark_prepared on, the connector's typed ticket hook
// (core/module.ts) writes a job with the ready's own rows; the job marks the order's local pickup
// fulfillment order prepared for pickup (fulfillmentOrderLineItemsPreparedForPickup, which also
// sends Shopify's own "ready for pickup" notice). A ready the connector's own job made (Shopify
// said so first) has no request and sets nothing off; the webhook Shopify then sends finds the
// ticket ready already, and rings nobody.
import { defineJobKind, type JobHandler } from '../../core/job-registry.ts';
import type { TicketHook } from '../../core/module.ts';
import type { Mode } from '../../core/tenancy.ts';
import { jobRow, newJob } from '../../store/outbox.ts';
import { getTicket } from '../../store/tickets.ts';
import { modeOf, openToken } from './connection-state.ts';
import { pickupOf, SHOPIFY_SOURCE, shopifyRetry } from './order-sync.ts';
import { ShopifyApi } from './shopify-api.ts';
import { getShopifyConnection } from './store.ts';

export type ShopifyPreparedPayload = { branch_id: string; mode: Mode; ticket_id: string };

export const SHOPIFY_PREPARED_JOB = defineJobKind<ShopifyPreparedPayload>('shopify_prepared', 'webhook');

export const shopifyReadyHook: TicketHook = async ({ event, ticket, byRequest, wakeJobs }, out) => {
  if (event.type !== 'ticket.ready' || !byRequest || ticket.source !== SHOPIFY_SOURCE) return;
  const payload: ShopifyPreparedPayload = { branch_id: event.branchId, mode: event.mode, ticket_id: ticket.id };
  await out.insert(
    jobRow(
      newJob(SHOPIFY_PREPARED_JOB, `shopify-prepared:${event.id}`, payload, event.createdAt, event.createdAt, {
        accountId: event.accountId,
      }),
    ),
  );
  out.afterCommit(wakeJobs);
};

export const shopifyPreparedJob: JobHandler<ShopifyPreparedPayload> = async (services, p) => {
  const config = services.config.shopify;
  const row = await getShopifyConnection(services.db, p.branch_id);
  if (config === null || row === undefined || !row.markPrepared || row.accessToken === null || row.locationId === null) return;
  if (modeOf(row) !== p.mode) return;
  const ticket = await getTicket(services.db, p.branch_id, p.mode, p.ticket_id);
  if (ticket?.externalRef == null) return;
  const api = new ShopifyApi(config);
  const token = openToken(services, row.branchId, row.accessToken);
  try {
    const order = await api.order(row.shop, token, ticket.externalRef);
    const pickup = order === null ? undefined : pickupOf(order, row.locationId);
    // Only an open pickup can be prepared; one closed or cancelled meanwhile is left alone.
    if (order === null || order.cancelled || pickup === undefined || !['OPEN', 'IN_PROGRESS'].includes(pickup.status)) return;
    await api.markPreparedForPickup(row.shop, token, pickup.id);
  } catch (err) {
    return shopifyRetry(services, err);
  }
};
