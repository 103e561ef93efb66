// How a ring crosses nodes. The channel (on the node running the ready call) publishes a ring
// request; whichever node holds the page's or board's stream writes it there; the browser
// confirms with a POST that any node may receive, which publishes the acknowledgement. The
// channel waits for it on `ring-ack:<ring>` (decision: docs/decisions/0006-ring-delivery.md).
import type { Bus, BusMessage } from '../core/bus.ts';
import type { ChannelName, PaidChannel } from '../core/channel-catalogue.ts';

/** The channels that wait for an acknowledgement on the bus (the catalogue's free channels other than push). */
export type AckChannel = Exclude<ChannelName, 'push' | PaidChannel>;

export const relayTopics = {
  /**
   * The ticket's own topic (after-commit updates travel on it too): a page costs its node one
   * subscription per ticket, not two, which matters with Redis and thousands of open pages.
   */
  pageRing: (ticketId: string) => `ticket:${ticketId}`,
  boardRing: (branchId: string, mode: string) => `board-ring:${branchId}:${mode}`,
  ringAck: (ringId: string) => `ring-ack:${ringId}`,
};

export type PageRingMessage = BusMessage & { type: 'page.ring'; ring_id: string; seq: number; reason: string; ticket_id: string };

export type BoardRingMessage = BusMessage & {
  type: 'board.announce';
  ring_id: string;
  ticket_id: string;
  queue: string;
  display_number: string;
  reason: string;
  speech: string;
  speech_lang: string;
};

/**
 * `delivered` false is a board saying "I got it but could not speak" (sound never enabled), so
 * the channel can stop waiting once every board it told has answered.
 */
export type RingAckMessage = BusMessage & {
  type: 'ring.ack';
  ring_id: string;
  /** A channel whose delivery a browser, board or device confirms (not a push service or provider). */
  channel: AckChannel;
  delivered: boolean;
  ticket_id: string | null;
  branch_id: string;
  mode: string;
  target: string;
  /** Sent by a page or board readybell simulates in test mode (simulated-clients.ts), not a browser. */
  simulated?: true;
};

/** `simulated`: the confirmation that counted came from a simulated page or board. */
export type AckWait = { delivered: boolean; answered: number; timedOut: boolean; simulated?: true };

/**
 * Listens for acknowledgements of one ring on one channel: resolves on the first `delivered`, or
 * once `expected` targets have all said no, or when any of `signals` aborts. Subscribe before
 * publishing the request, or a fast answer is missed.
 *
 * Several signals rather than one AbortSignal.any: Node's composite signals (and what their
 * listeners hold) outlive young collections. Measured in isolation, 300,000 of them promoted
 * 189 MB to the old generation where the same objects without them promoted 3.6 MB; the page
 * channel made one per ring, and promoted bytes lengthen the GC pauses a ring can land in
 * (decision 0006).
 */
export function waitForAck(
  bus: Bus,
  ringId: string,
  channel: RingAckMessage['channel'],
  accept: (ack: RingAckMessage) => boolean,
  expected: number,
  signals: readonly AbortSignal[],
): Promise<AckWait> {
  return new Promise((resolve) => {
    let answered = 0;
    const seen = new Set<string>();
    let done = false;
    const finish = (r: AckWait): void => {
      if (done) return;
      done = true;
      unsubscribe();
      for (const signal of signals) signal.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const onAbort = (): void => finish({ delivered: false, answered, timedOut: true });
    const unsubscribe = bus.subscribe(relayTopics.ringAck(ringId), (m) => {
      const ack = m as RingAckMessage;
      if (ack.type !== 'ring.ack' || ack.channel !== channel || ack.ring_id !== ringId || !accept(ack)) return;
      if (ack.delivered)
        return finish({ delivered: true, answered: answered + 1, timedOut: false, ...(ack.simulated ? { simulated: true as const } : {}) });
      if (seen.has(ack.target)) return;
      seen.add(ack.target);
      answered++;
      if (answered >= expected) finish({ delivered: false, answered, timedOut: false });
    });
    if (signals.some((signal) => signal.aborted)) onAbort();
    else for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
  });
}
