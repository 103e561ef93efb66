// How a ring reaches the customer. Each channel implements one interface; the ringer asks the
// ring policy which to try, runs them under one deadline, and reports only what really happened.
// Until channels are configured the ringer has none, and every ring honestly answers "none".
import type { Ticket } from '../store/tickets.ts';

export type ChannelName = 'push' | 'page' | 'sms' | 'display';
export type RingReason = 'ready' | 'manual' | 'reminder' | 'snooze_end';
export type ChannelUsed = 'push' | 'page' | 'sms' | 'none';

export type RingRequest = { ringId: string; seq: number; reason: RingReason; ticket: Ticket; livemode: boolean };

export type ChannelAttempt = {
  channel: ChannelName;
  delivered: boolean;
  detail?: string;
  /** The outcome is not known yet (a send still in flight): the ring stays open and is asked again. */
  pending?: boolean;
};

export type RingOutcome = {
  rang: boolean;
  channel_used: ChannelUsed;
  call_out_loud: boolean;
  attempts: ChannelAttempt[];
  /** false when the deadline cut the attempt short; the outbox job finishes it. */
  complete: boolean;
};

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
}

export interface Ringer {
  ring(request: RingRequest, deadlineMs: number): Promise<RingOutcome>;
}

export const NOBODY_REACHED: RingOutcome = { rang: false, channel_used: 'none', call_out_loud: false, attempts: [], complete: true };

export class SilentRinger implements Ringer {
  async ring(): Promise<RingOutcome> {
    return NOBODY_REACHED;
  }
}
