// The job a Shopify webhook sets off: read the order from Shopify and bring the branch's ticket in
// line with it, so the job is the same whatever webhook, retry or reordering set it off:
// - an open order with a local pickup fulfillment order (deliveryMethod.methodType PICK_UP) at the
//   connected location and no ticket yet → the ticket, created through the create path with an
//   Idempotency-Key of (shop, order), so two racing jobs make one ticket; its number is written
//   to the order as a tag (`readybell-<number>`, tagsAdd);
// - the fulfillment order prepared for pickup in Shopify (its webhook) → ready (rings): a ready
//   ticket cannot be made ready again, so a second delivery never rings twice;
// - the pickup fulfillment order CLOSED (read when fulfillments/create arrives) → collected;
//   the order cancelled, or its pickup fulfillment order CANCELLED → cancelled.
import type { Ctx, Services } from '../../core/ctx.ts';
import type { Ticket } from '../../core/ticket.ts';
import { defineJobKind, type JobHandler, type TaskResult } from '../../core/job-registry.ts';
import { AppError } from '../../domain/errors.ts';
import { parseCustomerPhone } from '../../domain/customer-phone.ts';
import { anyPaidChannelOn } from '../../domain/branch-settings.ts';
import { planHasPaidChannels } from '../../domain/ring-policy.ts';
import { ctxForBranch } from '../../actions/system-ctx.ts';
import { createTicket } from '../../actions/create-ticket.ts';
import { cancelTicket, collectTicket } from '../../actions/close-ticket.ts';
import { markReady } from '../../ring/ready.ts';
import { write, writeOnce } from '../../write/idempotent-write.ts';
import { getTicket, listTickets } from '../../store/tickets.ts';
import { getBranch, listQueues } from '../../store/tenancy.ts';
import { modeOf, openToken } from './connection-state.ts';
import { ShopifyApi, ShopifyCallError, type ShopifyFulfillmentOrder, type ShopifyOrder } from './shopify-api.ts';
import { getShopifyConnection, type ShopifyConnectionRow } from './store.ts';

export type ShopifyOrderJobPayload = { branch_id: string; shop: string; topic: string; order_id?: string; fulfillment_order_id?: string };

/** In the webhook lane: Shopify's calls may be slow, and rings never wait behind them (decision 0048). */
export const SHOPIFY_ORDER_JOB = defineJobKind<ShopifyOrderJobPayload>('shopify_order', 'webhook');

/** The server-set `source` of the tickets it makes (decision 0076), and their `metadata.source`. */
export const SHOPIFY_SOURCE = 'shopify';
export const ticketTag = (displayNumber: string): string => `readybell-${displayNumber}`;

const THROTTLED_RETRY_MS = 30_000;
const OPEN = new Set(['created', 'ready']);
const PREPARED_TOPIC = 'fulfillment_orders/line_items_prepared_for_pickup';

/** Shopify's throttle puts the job off; anything else lets the runner back off. */
export function shopifyRetry(services: Services, err: unknown): TaskResult {
  if (err instanceof ShopifyCallError && err.status === 429) return { retryAt: services.clock.now() + THROTTLED_RETRY_MS };
  throw err;
}

/** The connection, when it still is this shop's and complete (a disconnect meanwhile ends the job). */
export async function connectionFor(services: Services, branchId: string, shop: string): Promise<ShopifyConnectionRow | null> {
  const row = await getShopifyConnection(services.db, branchId);
  if (row === undefined || row.accessToken === null || row.locationId === null || services.config.shopify === null) return null;
  return row.shop === shop ? row : null;
}

/** The order's local pickup at the branch's location, if it has one. */
export const pickupOf = (order: ShopifyOrder, locationId: string): ShopifyFulfillmentOrder | undefined =>
  order.fulfillmentOrders.find((f) => f.methodType === 'PICK_UP' && f.locationId === locationId);

export const shopifyOrderJob: JobHandler<ShopifyOrderJobPayload> = async (services, p) => {
  const row = await connectionFor(services, p.branch_id, p.shop);
  if (row === null) return;
  const ctx = await ctxForBranch(services, p.branch_id, modeOf(row), SHOPIFY_SOURCE);
  if (ctx === null) return;
  const api = new ShopifyApi(services.config.shopify!);
  const token = openToken(services, row.branchId, row.accessToken!);
  try {
    const orderId =
      p.order_id ?? (p.fulfillment_order_id === undefined ? null : await api.orderIdOf(p.shop, token, p.fulfillment_order_id));
    const order = orderId === null ? null : await api.order(p.shop, token, orderId);
    if (order === null) return;
    const pickup = pickupOf(order, row.locationId!);
    if (pickup === undefined) {
      // Shipped, delivered, or picked up at another location: no ticket, but never silently.
      services.log.info({ connector: SHOPIFY_SOURCE, branch: p.branch_id }, 'Shopify order without a local pickup here: no ticket');
      services.metrics?.connectorOrdersIgnored.inc({ connector: SHOPIFY_SOURCE, reason: 'no_pickup' });
      return;
    }
    let ticket = await ticketOf(ctx, order.id);
    if (ticket === undefined) {
      // An order already over when first seen gets no ticket.
      if (order.cancelled || pickup.status === 'CLOSED' || pickup.status === 'CANCELLED') return;
      ticket = await createFromOrder(ctx, row, order);
    }
    ticket = await follow(ctx, ticket, order, pickup, p.topic);
    const tag = ticketTag(ticket.displayNumber);
    if (OPEN.has(ticket.status) && !order.cancelled && !order.tags.includes(tag)) await api.addTag(p.shop, token, order.id, tag);
  } catch (err) {
    return shopifyRetry(services, err);
  }
};

export async function ticketOf(ctx: Ctx, orderId: string): Promise<Ticket | undefined> {
  const { data } = await listTickets(ctx.services.db, ctx.branchId, ctx.mode, { externalRef: orderId, limit: 10 });
  return data.find((t) => t.source === SHOPIFY_SOURCE);
}

async function createFromOrder(ctx: Ctx, row: ShopifyConnectionRow, order: ShopifyOrder): Promise<Ticket> {
  const branch = await getBranch(ctx.services.db, ctx.branchId);
  // The phone is kept only where the branch may send it a paid message (SMS, WhatsApp; PRODUCT.md §1: kept only while it can be used).
  const paidOn = branch !== undefined && anyPaidChannelOn(branch.settings) && planHasPaidChannels(ctx.plan);
  const phone = paidOn && order.phone !== null ? parseCustomerPhone(order.phone, branch!.settings.customer_page.phone_country) : null;
  const queue =
    row.queue !== null && (await listQueues(ctx.services.db, ctx.branchId)).some((q) => q.name === row.queue) ? row.queue : null;
  const input = {
    ...(queue === null ? {} : { queue }),
    external_ref: order.id,
    ...(phone?.ok ? { customer_phone: phone.e164 } : {}),
    metadata: { source: SHOPIFY_SOURCE },
  };
  // The key is the order: a second job for it (a retry, a racing webhook) gets the first one's ticket.
  const key = `shopify:${row.shop}:${order.id}`;
  await writeOnce(ctx, { commit: createTicket, input }, { key, fingerprint: key, status: 201, finalRefusal: () => null });
  const ticket = await ticketOf(ctx, order.id);
  if (ticket === undefined) throw new Error('the ticket made for a Shopify order is gone');
  return ticket;
}

/** The ticket as the order says it is; a transition someone else made first is left as it is. */
async function follow(ctx: Ctx, ticket: Ticket, order: ShopifyOrder, pickup: ShopifyFulfillmentOrder, topic: string): Promise<Ticket> {
  const id = ticket.id;
  try {
    if ((order.cancelled || pickup.status === 'CANCELLED') && OPEN.has(ticket.status)) {
      await write(ctx, { verb: cancelTicket, input: { id, reason: 'Cancelled in Shopify' } });
    } else if (pickup.status === 'CLOSED' && OPEN.has(ticket.status)) {
      // The pickup's own fulfillment closes it; a fulfillment of the order's shipped part leaves it open.
      await write(ctx, { verb: collectTicket, input: { id } });
    } else if (topic === PREPARED_TOPIC && ticket.status === 'created') {
      await write(ctx, { verb: markReady, input: { id } });
    } else {
      return ticket;
    }
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'ticket-state-conflict')) throw err;
  }
  return (await getTicket(ctx.services.db, ctx.branchId, ctx.mode, id)) ?? ticket;
}
