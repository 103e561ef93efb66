// The channels' side of ringing: each channel (push, page, SMS, display) implements one interface;
// the ringer asks the ring policy which to try, runs them under one deadline, and reports only what
// really happened. The ring vocabulary and the Ringer port actions use are in src/core/ring.ts.
import type { ChannelAttempt, ChannelName, RingOutcome, RingRequest, RingTarget } from '../core/ring.ts';

/** The detail of a delivery to something readybell simulates in test mode: an SMS, a push service, a page, a board. */
export const SIMULATED_DETAIL = 'simulated (test mode)';

/**
 * One way of reaching the customer (or the shop, for `display`). `ring` must deliver at most once
 * per (ring, channel): the in-line attempt and the outbox job may both call it for the same ring,
 * so implementations keep a dedupe record keyed by ring id and channel (and target).
 * It resolves with what really happened; `delivered` is true only on confirmed delivery (the
 * push service accepted it, an open page or board acknowledged it, the SMS provider accepted it).
 */
export interface Channel {
  readonly name: ChannelName;
  ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt>;
  /**
   * Optional: looks up, before the transaction that starts a ring, what this channel would find
   * (who is connected). The check it resolves to answers, for the ring's first attempt, what
   * `ring` would answer when that needs no one contacted ("no page open"), and null when the
   * channel has someone to try. A channel without it always counts as having someone to try.
   */
  lookAhead?(target: RingTarget): Promise<QuietCheck>;
}

/** See Channel.lookAhead; `request.first` is set. */
export type QuietCheck = (request: RingRequest) => ChannelAttempt | null;

export const NOBODY_REACHED: RingOutcome = { rang: false, channel_used: 'none', call_out_loud: false, attempts: [], complete: true };
