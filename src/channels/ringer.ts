// How a ring reaches the customer. Each channel implements one interface; the ringer asks the
// ring policy which to try, runs them under one deadline, and reports only what really happened.
// Until channels are configured the ringer has none, and every ring honestly answers "none".
import type { Ticket } from '../store/tickets.ts';
import type { RingBranch } from '../store/rings.ts';
import type { Mode, Plan } from '../store/tenancy.ts';

export type ChannelName = 'push' | 'page' | 'sms' | 'display';
export type RingReason = 'ready' | 'manual' | 'reminder' | 'snooze_end';
/** unknown: nothing is known to have reached the customer, and a send that may have did not record its outcome. */
export type ChannelUsed = 'push' | 'page' | 'sms' | 'none' | 'unknown';

export type RingRequest = { ringId: string; seq: number; reason: RingReason; ticket: Ticket; livemode: boolean; first?: FirstAttempt };

/**
 * Set only for the attempt made right after the ring was started, in the same process: what the
 * transaction that started it read (so the ringer and the channels read none of it again), and the
 * knowledge that no earlier attempt exists whose confirmation they would have to look up. A page
 * or board that confirmed the ring through its snapshot in the meantime dedupes the repeat by ring
 * id and confirms again, so skipping that lookup never alerts anyone twice.
 */
export type FirstAttempt = { branch: RingBranch; plan: Plan; pushSubscriptions: number };

export type ChannelAttempt = {
  channel: ChannelName;
  /** null: unknown (an SMS whose sender died between sending and recording it). */
  delivered: boolean | null;
  detail?: string;
  /** The outcome is not known yet (a send still in flight): the ring stays open and is asked again. */
  pending?: boolean;
};

/** The detail of a delivery to something readybell simulates in test mode: an SMS, a push service, a page, a board. */
export const SIMULATED_DETAIL = 'simulated (test mode)';

export type RingOutcome = {
  rang: boolean;
  channel_used: ChannelUsed;
  call_out_loud: boolean;
  attempts: ChannelAttempt[];
  /** false when the deadline cut the attempt short; the outbox job finishes it. */
  complete: boolean;
  /**
   * A push or SMS send's outcome was not known yet (still in flight, or claimed by an attempt
   * not yet known to be dead): even the job's last try must not record the ring before it is.
   */
  sending?: true;
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
  /**
   * Optional: looks up, before the transaction that starts a ring, what this channel would find
   * (who is connected). The check it resolves to answers, for the ring's first attempt, what
   * `ring` would answer when that needs no one contacted ("no page open"), and null when the
   * channel has someone to try. A channel without it always counts as having someone to try.
   */
  lookAhead?(target: RingTarget): Promise<QuietCheck>;
}

/** Whose ring a look-ahead is for: known from the request before the ticket is read. */
export type RingTarget = { ticketId: string; branchId: string; mode: Mode };

/** See Channel.lookAhead; `request.first` is set. */
export type QuietCheck = (request: RingRequest) => ChannelAttempt | null;

export interface Ringer {
  ring(request: RingRequest, deadlineMs: number): Promise<RingOutcome>;
  /**
   * Optional: the channels' look-aheads together. The check answers the whole (complete) outcome
   * of the ring's first attempt when no channel has anyone to try, so that the ring can be
   * recorded with the transaction that starts it; null when a channel has someone to try.
   */
  lookAhead?(target: RingTarget): Promise<(request: RingRequest) => RingOutcome | null>;
}

export const NOBODY_REACHED: RingOutcome = { rang: false, channel_used: 'none', call_out_loud: false, attempts: [], complete: true };

export class SilentRinger implements Ringer {
  async ring(): Promise<RingOutcome> {
    return NOBODY_REACHED;
  }
}
