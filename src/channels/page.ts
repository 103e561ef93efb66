// The `page` channel: rings the customer's open page through the SSE hub of whichever node holds
// it. Delivered means the page's script confirmed it (docs/decisions/0006-ring-delivery.md), so
// `channel_used: "page"` is never a guess. With no page open (presence), it answers at once.
import type { Channel, QuietCheck } from './ringer.ts';
import type { ChannelAttempt, RingRequest, RingTarget } from '../core/ring.ts';
import type { Queryable } from '../core/db.ts';
import type { Bus } from '../core/bus.ts';
import type { Presence } from '../realtime/presence.ts';
import { presenceScopes } from '../realtime/presence.ts';
import { relayTopics, waitForAck, type AckChannel, type AckWait, type PageRingMessage } from '../realtime/ring-relay.ts';
import { SIMULATED_DETAIL } from './ringer.ts';
import { wasDelivered } from '../store/ring-deliveries.ts';

export type LiveChannelDeps = { db: Queryable; bus: Bus; presence: Presence };

const NO_PAGE: ChannelAttempt = { channel: 'page', delivered: false, detail: 'no page open' };

/** A delivered ring; one confirmed by a page or board readybell simulates (test mode) says so. */
export function confirmed(channel: AckChannel, ack: AckWait): ChannelAttempt {
  return ack.simulated === true ? { channel, delivered: true, detail: SIMULATED_DETAIL } : { channel, delivered: true };
}

export function createPageChannel(deps: LiveChannelDeps): Channel {
  const { db, bus, presence } = deps;
  return {
    name: 'page',
    async lookAhead(target: RingTarget): Promise<QuietCheck> {
      const open = (await presence.members(presenceScopes.page(target.ticketId))).length > 0;
      return () => (open ? null : { ...NO_PAGE });
    },
    async ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
      const ticketId = request.ticket.id;
      // At most once per (ring, channel): a page that already confirmed this ring is not rung again.
      // (The first attempt has no earlier one to look up; see FirstAttempt.)
      if (request.first === undefined && (await wasDelivered(db, request.ringId, 'page')))
        return { channel: 'page', delivered: true, detail: 'already delivered' };
      // The ring goes out while presence is asked, not after: an open page hears it one Redis
      // round trip sooner (ready → ring is the latency the customer waits for), and with no page
      // open nobody hears it and the answer is the same, at once.
      const noPage = new AbortController();
      const ack = waitForAck(bus, request.ringId, 'page', (a) => a.ticket_id === ticketId, Number.POSITIVE_INFINITY, [
        signal,
        noPage.signal,
      ]);
      const message: PageRingMessage = {
        type: 'page.ring',
        ring_id: request.ringId,
        seq: request.seq,
        reason: request.reason,
        ticket_id: ticketId,
      };
      bus.publish(relayTopics.pageRing(ticketId), message);
      if ((await presence.members(presenceScopes.page(ticketId))).length === 0) {
        noPage.abort();
        // A page that confirmed meanwhile (it opened as presence was read) still counts.
        const late = await ack;
        return late.delivered ? confirmed('page', late) : { ...NO_PAGE };
      }
      const result = await ack;
      if (result.delivered) return confirmed('page', result);
      return {
        channel: 'page',
        delivered: false,
        detail: result.timedOut ? 'no confirmation from the page before the deadline' : 'not confirmed',
      };
    },
  };
}
