// How a ring reaches the customer, as the code that starts rings sees it: what a ring asks for
// (RingRequest), what really happened (RingOutcome) and the port that carries it out (Ringer).
// The ringer (src/channels/channel-ringer.ts) asks the ring policy (src/domain/ring-policy.ts)
// which channels to try, runs them under one deadline, and reports only what really happened.
import type { BranchSettings } from './branch-settings.ts';
import type { Plan, Mode } from './tenancy.ts';
import type { Ticket } from './ticket.ts';
import type { ChannelName, ChannelUsed, FreeChannel } from './channel-catalogue.ts';

/** What the channels need of the branch: its name (texts) and settings (voice, SMS, language). */
export type RingBranch = { name: string; settings: BranchSettings };

// The channels' names and kinds are declared once, in the catalogue (decision 0074).
export type { ChannelName, ChannelUsed, FreeChannel, PaidChannel } from './channel-catalogue.ts';
export type RingReason = 'ready' | 'manual' | 'reminder' | 'snooze_end';

/**
 * Which channels one ring may use: a parameter of every ring, decided per ring by the ring
 * module's policy (src/domain/ring-escalation.ts) and stored on the ring's row, so that the job that
 * finishes a ring uses the channels its start chose (src/domain/channel-choice.ts).
 */
export type ChannelChoice = {
  /** Free channels this ring may try, in stage 1. */
  free: readonly FreeChannel[];
  /**
   * The paid channels (SMS and any other the catalogue declares paid; the name is the API's, from
   * when SMS was the only one): `fallback` only when stage 1 reached the customer through no free
   * channel (PRODUCT.md §2); `always` alongside stage 1, even if push is accepted; `never`.
   */
  sms: 'fallback' | 'always' | 'never';
};

/** `channels`: which channels this ring may use (decided by src/domain/ring-escalation.ts, stored on the ring). */
export type RingRequest = {
  ringId: string;
  seq: number;
  reason: RingReason;
  ticket: Ticket;
  livemode: boolean;
  channels: ChannelChoice;
  first?: FirstAttempt;
};

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
  /**
   * Sent, and its confirmation not heard yet (a wallet pass the device has not fetched): the ring
   * stays open and its job asks again; the job's last try records it as not delivered.
   */
  unconfirmed?: true;
};

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

/** Whose ring a look-ahead is for: known from the request before the ticket is read. */
export type RingTarget = { ticketId: string; branchId: string; mode: Mode };

export interface Ringer {
  ring(request: RingRequest, deadlineMs: number): Promise<RingOutcome>;
  /**
   * Optional: the channels' look-aheads together. The check answers the whole (complete) outcome
   * of the ring's first attempt when no channel has anyone to try, so that the ring can be
   * recorded with the transaction that starts it; null when a channel has someone to try.
   */
  lookAhead?(target: RingTarget): Promise<(request: RingRequest) => RingOutcome | null>;
}
