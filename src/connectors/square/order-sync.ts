// The job a Square notification sets off: read the order from Square (a notification carries only
// part of it) and bring the branch's ticket in line with it. Reading the whole order each time
// makes the job the same whatever notification, retry or reordering set it off:
// - a PICKUP fulfillment at the connected location and no ticket yet → the ticket, created through
//   the create path with an Idempotency-Key of (merchant, order, fulfillment), so two racing jobs
//   make one ticket; its display number is written back to the order's ticket_name;
// - fulfillment PREPARED → ready (rings): a ready ticket cannot be made ready again, so a second
//   PREPARED never rings twice; COMPLETED → collected; CANCELED or FAILED → cancelled.
// Square's rate limit answers (429 after the SDK's own retries) put the job off by Retry-After.
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
import { getSquareConnection, type SquareConnectionRow } from '../../store/square-connections.ts';
import { getTicket, listTickets } from '../../store/tickets.ts';
import { getBranch, listQueues } from '../../store/tenancy.ts';
import { modeOf, openToken } from './connection-state.ts';
import { SquareApi, SquareCallError, type SquareFulfillment, type SquareOrder } from './square-api.ts';

export type SquareOrderJobPayload = { branch_id: string; merchant_id: string; order_id: string; event_id: string; type: string };

/** In the webhook lane: Square's calls may be slow, and rings never wait behind them (decision 0048). */
export const SQUARE_ORDER_JOB = defineJobKind<SquareOrderJobPayload>('square_order', 'webhook');

/**
 * Where a ticket came from: the server-set `source` (the connector's system actor, decision 0076),
 * and, as before, `metadata.source` (decision 0073), which the staff board and ticket.* events show.
 */
export const SQUARE_SOURCE = 'square';

const RATE_LIMITED_RETRY_MS = 60_000;
const OPEN = new Set(['created', 'ready']);

/** A Square call refused for now: put the job off as Square asked (429), or let the runner back off. */
export function squareRetry(services: Services, err: unknown): TaskResult {
  if (err instanceof SquareCallError && err.status === 429)
    return { retryAt: services.clock.now() + (err.retryAfterMs ?? RATE_LIMITED_RETRY_MS) };
  throw err;
}

/** The connection, when it still is this merchant's and complete (a disconnect meanwhile ends the job). */
async function connectionFor(services: Services, p: { branch_id: string; merchant_id?: string }): Promise<SquareConnectionRow | null> {
  const row = await getSquareConnection(services.db, p.branch_id);
  if (row === undefined || row.accessToken === null || row.locationId === null || services.config.square === null) return null;
  return p.merchant_id === undefined || row.merchantId === p.merchant_id ? row : null;
}

export const squareOrderJob: JobHandler<SquareOrderJobPayload> = async (services, p) => {
  const row = await connectionFor(services, p);
  if (row === null) return;
  // The connector's system actor: the ticket it creates gets source 'square', which no request can set.
  const ctx = await ctxForBranch(services, p.branch_id, modeOf(row.environment), SQUARE_SOURCE);
  if (ctx === null) return;
  const api = new SquareApi(services.config.square!);
  const token = openToken(services, row.branchId, 'access', row.accessToken!);
  try {
    const order = await api.getOrder(token, p.order_id);
    if (order === null || order.locationId !== row.locationId) return;
    const pickup = order.fulfillments.find((f) => f.type === 'PICKUP');
    if (pickup === undefined) {
      // Not a pickup (a delivery, a shipment, an order paid at the counter): no ticket, but never silently.
      services.log.info(
        { connector: SQUARE_SOURCE, branch: p.branch_id, order: order.id },
        'Square order without a pickup fulfillment: no ticket',
      );
      services.metrics?.connectorOrdersIgnored.inc({ connector: SQUARE_SOURCE, reason: 'no_pickup' });
      return;
    }
    let ticket = await ticketOf(ctx, order.id);
    if (ticket === undefined) {
      // An order already over when first seen gets no ticket.
      if (!['PROPOSED', 'RESERVED', 'PREPARED'].includes(pickup.state) || order.state !== 'OPEN') return;
      ticket = await createFromOrder(ctx, row, order, pickup);
    }
    ticket = await followFulfillment(ctx, ticket, pickup);
    if (OPEN.has(ticket.status) && order.state === 'OPEN' && order.ticketName !== ticket.displayNumber) {
      // With the version read above: if the order changed since, Square refuses (VERSION_MISMATCH)
      // and the job's retry reads it again.
      await api.updateOrder(
        token,
        order.id,
        { locationId: order.locationId, version: order.version, ticketName: ticket.displayNumber },
        `readybell-name-${ticket.id}-${order.version ?? 0}`,
      );
    }
  } catch (err) {
    return squareRetry(services, err);
  }
};

async function ticketOf(ctx: Ctx, orderId: string): Promise<Ticket | undefined> {
  const { data } = await listTickets(ctx.services.db, ctx.branchId, ctx.mode, { externalRef: orderId, limit: 10 });
  return data.find((t) => t.source === SQUARE_SOURCE);
}

async function createFromOrder(ctx: Ctx, row: SquareConnectionRow, order: SquareOrder, pickup: SquareFulfillment): Promise<Ticket> {
  const branch = await getBranch(ctx.services.db, ctx.branchId);
  // The recipient's phone is kept only where the branch may send it a paid message (SMS, WhatsApp; PRODUCT.md §1: kept only while it can be used).
  const paidOn = branch !== undefined && anyPaidChannelOn(branch.settings) && planHasPaidChannels(ctx.plan);
  const phone = paidOn && pickup.phone !== null ? parseCustomerPhone(pickup.phone, branch!.settings.customer_page.phone_country) : null;
  // A queue removed since the owner chose it: the branch's default rather than no ticket at all.
  const queue =
    row.queue !== null && (await listQueues(ctx.services.db, ctx.branchId)).some((q) => q.name === row.queue) ? row.queue : null;
  const input = {
    ...(queue === null ? {} : { queue }),
    external_ref: order.id,
    ...(phone?.ok ? { customer_phone: phone.e164 } : {}),
    metadata: { source: SQUARE_SOURCE },
  };
  // The key is the order's fulfillment: a second job for it (a retry, a racing notification)
  // gets the first one's ticket back instead of a second ticket.
  const key = `square:${row.merchantId}:${order.id}:${pickup.uid}`;
  const written = await writeOnce(ctx, { commit: createTicket, input }, { key, fingerprint: key, status: 201, finalRefusal: () => null });
  // A repeat gets the first create's answer as stored under the key.
  const id = written.kind === 'result' ? written.result.id : (JSON.parse(written.stored.body) as { id: string }).id;
  const ticket = await getTicket(ctx.services.db, ctx.branchId, ctx.mode, id);
  if (ticket === undefined) throw new Error('the ticket made for a Square order is gone');
  return ticket;
}

/** The ticket as the fulfillment's state says it is; a transition someone else made first is left as it is. */
async function followFulfillment(ctx: Ctx, ticket: Ticket, pickup: SquareFulfillment): Promise<Ticket> {
  const id = ticket.id;
  try {
    if (pickup.state === 'PREPARED' && ticket.status === 'created') {
      await write(ctx, { verb: markReady, input: { id } });
    } else if (pickup.state === 'COMPLETED' && OPEN.has(ticket.status)) {
      await write(ctx, { verb: collectTicket, input: { id } });
    } else if ((pickup.state === 'CANCELED' || pickup.state === 'FAILED') && OPEN.has(ticket.status)) {
      await write(ctx, { verb: cancelTicket, input: { id, reason: `${pickup.state === 'FAILED' ? 'Failed' : 'Cancelled'} in Square` } });
    } else {
      return ticket;
    }
  } catch (err) {
    // Another job, or the staff page, moved the ticket first: nothing to ring or close twice.
    if (!(err instanceof AppError && err.code === 'ticket-state-conflict')) throw err;
  }
  return (await getTicket(ctx.services.db, ctx.branchId, ctx.mode, id)) ?? ticket;
}
