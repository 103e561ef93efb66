// The branch setting mark_prepared: when readybell's staff page (or the POS through the API) marks
// a ticket from Square ready, the order's pickup fulfillment at Square becomes PREPARED too. The
// connector's ticket hook (core/module.ts) sees each ticket change as its event is recorded and,
// for a ready of a ticket whose server-set source is Square, made by a request (not by the
// connector's own job, which has no request: that ready came from Square), writes a job with the
// ready's own rows, so it exists exactly when the ready committed. A client that writes
// `"source":"square"` into its ticket's metadata sets nothing off. The job reads the order and
// moves a PROPOSED or RESERVED fulfillment to PREPARED with the order's version; a fulfillment
// already PREPARED (or past it) is left alone. The notification Square then sends finds the ticket
// ready already, and rings nobody.
import { defineJobKind, type JobHandler } from '../../core/job-registry.ts';
import type { TicketHook } from '../../core/module.ts';
import type { Mode } from '../../core/tenancy.ts';
import { jobRow, newJob } from '../../store/outbox.ts';
import { getSquareConnection } from '../../store/square-connections.ts';
import { getTicket } from '../../store/tickets.ts';
import { modeOf, openToken } from './connection-state.ts';
import { SQUARE_SOURCE, squareRetry } from './order-sync.ts';
import { SquareApi } from './square-api.ts';

export type SquarePreparedPayload = { branch_id: string; mode: Mode; ticket_id: string };

export const SQUARE_PREPARED_JOB = defineJobKind<SquarePreparedPayload>('square_prepared', 'webhook');

/** Square tickets made ready by a request get the job that tells Square. */
export const squareReadyHook: TicketHook = async ({ event, ticket, byRequest, wakeJobs }, out) => {
  if (event.type !== 'ticket.ready' || !byRequest || ticket.source !== SQUARE_SOURCE) return;
  const payload: SquarePreparedPayload = { branch_id: event.branchId, mode: event.mode, ticket_id: ticket.id };
  await out.insert(
    jobRow(
      newJob(SQUARE_PREPARED_JOB, `square-prepared:${event.id}`, payload, event.createdAt, event.createdAt, {
        accountId: event.accountId,
      }),
    ),
  );
  out.afterCommit(wakeJobs);
};

export const squarePreparedJob: JobHandler<SquarePreparedPayload> = async (services, p) => {
  const config = services.config.square;
  const row = await getSquareConnection(services.db, p.branch_id);
  if (config === null || row === undefined || !row.markPrepared || row.accessToken === null || modeOf(row.environment) !== p.mode) return;
  const ticket = await getTicket(services.db, p.branch_id, p.mode, p.ticket_id);
  if (ticket?.externalRef == null) return;
  const api = new SquareApi(config);
  const token = openToken(services, row.branchId, 'access', row.accessToken);
  try {
    const order = await api.getOrder(token, ticket.externalRef);
    const pickup = order?.fulfillments.find((f) => f.type === 'PICKUP');
    if (order == null || pickup === undefined || !['PROPOSED', 'RESERVED'].includes(pickup.state)) return;
    // With the version read: an order changed meanwhile is refused (VERSION_MISMATCH) and read again on the retry.
    await api.updateOrder(
      token,
      order.id,
      { locationId: order.locationId, version: order.version, fulfillment: { uid: pickup.uid, state: 'PREPARED' } },
      `readybell-prepared-${ticket.id}`,
    );
  } catch (err) {
    return squareRetry(services, err);
  }
};
