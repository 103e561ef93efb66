// A page's or board's confirmation of a ring, whoever sends it: the browser's script (through
// /t/<token>/ring-ack and /board/<token>/ack) or a client readybell simulates in test mode. The
// bus carries it to the node whose channel is waiting; the record lets a later attempt of the
// same ring know it was delivered (decision 0006).
import type { BaseServices } from '../core/ctx.ts';
import type { Display } from '../store/displays.ts';
import type { Ticket } from '../core/ticket.ts';
import { recordBranchDelivery, recordTicketDelivery } from '../store/ring-deliveries.ts';
import { relayTopics, type RingAckMessage } from './ring-relay.ts';
import { observeRingDelivery } from '../metrics.ts';

type From = { simulated?: boolean };

export async function confirmPageRing(
  services: BaseServices,
  ticket: Pick<Ticket, 'id' | 'branchId' | 'mode'>,
  ringId: string,
  from: From = {},
): Promise<void> {
  const ack: RingAckMessage = {
    type: 'ring.ack',
    ring_id: ringId,
    channel: 'page',
    delivered: true,
    ticket_id: ticket.id,
    branch_id: ticket.branchId,
    mode: ticket.mode,
    target: 'page',
    ...(from.simulated === true ? { simulated: true as const } : {}),
  };
  services.bus.publish(relayTopics.ringAck(ringId), ack);
  const now = services.clock.now();
  if (await services.db.write((tx) => recordTicketDelivery(tx, ringId, ticket.id, 'page', 'page', now)))
    observeRingDelivery(services.metrics, 'page', ringId, now);
}

/** `spoke` false: the board got the call-out but could not speak (sound never enabled). */
export async function confirmBoardRing(
  services: BaseServices,
  display: Pick<Display, 'id' | 'branchId' | 'mode'>,
  ringId: string,
  spoke: boolean,
  from: From = {},
): Promise<void> {
  const ack: RingAckMessage = {
    type: 'ring.ack',
    ring_id: ringId,
    channel: 'display',
    delivered: spoke,
    ticket_id: null,
    branch_id: display.branchId,
    mode: display.mode,
    target: display.id,
    ...(from.simulated === true ? { simulated: true as const } : {}),
  };
  services.bus.publish(relayTopics.ringAck(ringId), ack);
  if (!spoke) return;
  const now = services.clock.now();
  if (await services.db.write((tx) => recordBranchDelivery(tx, ringId, display.branchId, display.mode, 'display', display.id, now))) {
    observeRingDelivery(services.metrics, 'display', ringId, now);
  }
}

/**
 * A device fetched a wallet pass whose version announces `ringId` (Apple's delivery receipt, decision
 * 0071): the wallet channel waiting on any node hears it, and a later attempt finds the record.
 */
export async function confirmWalletRing(
  services: BaseServices,
  ticket: Pick<Ticket, 'id' | 'branchId' | 'mode'>,
  ringId: string,
  target: string,
): Promise<void> {
  const ack: RingAckMessage = {
    type: 'ring.ack',
    ring_id: ringId,
    channel: 'wallet',
    delivered: true,
    ticket_id: ticket.id,
    branch_id: ticket.branchId,
    mode: ticket.mode,
    target,
  };
  const now = services.clock.now();
  // Recorded before it is announced: an attempt that hears nothing (its deadline passed) finds the record.
  if (await services.db.write((tx) => recordTicketDelivery(tx, ringId, ticket.id, 'wallet', target, now)))
    observeRingDelivery(services.metrics, 'wallet', ringId, now);
  services.bus.publish(relayTopics.ringAck(ringId), ack);
}
