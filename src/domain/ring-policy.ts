// Which channels a ring tries, in which order, and what the answer says (PRODUCT.md §2). Pure, so
// every combination is unit-tested; the ringer (channels/channel-ringer.ts) only carries it out.
// The channels, their kinds, order and strength come from the catalogue (core/channel-catalogue.ts).
//
// Stage 1 fans out in parallel to everything free: push (each subscription), wallet (a pass a
// device registered), page (an open customer page) and display (the shop's boards). Stage 2 is the
// paid channels (SMS): sent only when stage 1 reached the customer through no free channel, only on
// a plan with paid channels, only with a phone number and only if the branch has that channel on.
// Test mode simulates them. Each ring may narrow that (ChannelChoice: some free channels only, the
// paid ones never or always).
import type { ChannelAttempt, ChannelName, ChannelUsed } from '../core/ring.ts';
import type { Plan } from '../core/tenancy.ts';
import { EVERY_CHANNEL } from './channel-choice.ts';
import type { ChannelChoice } from '../core/ring.ts';
import {
  FREE_CHANNELS,
  PAID_CHANNELS,
  STRENGTH,
  channelDeclaration,
  reachesCustomer,
  type PaidChannel,
} from '../core/channel-catalogue.ts';

/** Whether the branch has each paid channel on (`smsEnabled`: its `sms_enabled`; the catalogue's `branchSwitch`). */
export type PaidSwitches = { [C in PaidChannel as `${C}Enabled`]: boolean };

export type RingFacts = PaidSwitches & {
  /** Channels this service has configured (a ringer works with whatever it is given). */
  configured: ReadonlySet<ChannelName>;
  /** A ring is only for a ticket that is still ready; a closed ticket is never rung. */
  ticketReady: boolean;
  /** Whether an open customer page is known; null when unknown (the page channel finds out). */
  pageOpen: boolean | null;
  pushSubscriptions: number;
  phone: boolean;
  plan: Plan;
  livemode: boolean;
};

/**
 * The paid stage. `channels`: the paid channels to send, in the catalogue's order; `alongside`: the
 * ring chose them even if a free channel reaches the customer, so they go out with stage 1. Not
 * sent: why (of the first paid channel, when none is sent).
 */
export type SmsDecision =
  | { send: true; simulate: boolean; alongside: boolean; channels: PaidChannel[] }
  | { send: false; reason: 'ticket-not-ready' | 'not-chosen' | 'not-configured' | 'plan' | 'disabled' | 'no-phone' };

export type RingPlan = { fanOut: ChannelName[]; sms: SmsDecision };

/** Stage-1 order: also the order of `attempts` in a ring's result. */
export const FAN_OUT_ORDER: readonly ChannelName[] = FREE_CHANNELS;
/** Every channel in the order a ring's `attempts` list them: stage 1's, then the paid ones. */
export const ATTEMPT_ORDER: readonly ChannelName[] = [...FREE_CHANNELS, ...PAID_CHANNELS];

export function planRing(f: RingFacts, chosen: ChannelChoice = EVERY_CHANNEL): RingPlan {
  if (!f.ticketReady) return { fanOut: [], sms: { send: false, reason: 'ticket-not-ready' } };
  const fanOut = FAN_OUT_ORDER.filter((c) => {
    if (!f.configured.has(c) || !(chosen.free as readonly ChannelName[]).includes(c)) return false;
    if (c === 'push') return f.pushSubscriptions > 0;
    if (c === 'page') return f.pageOpen !== false;
    return true;
  });
  return { fanOut, sms: paidDecision(f, chosen) };
}

/** The paid channels (SMS) are in the business plan only. */
export function planHasPaidChannels(plan: Plan): boolean {
  return plan === 'business';
}

/** Whether the branch turned paid channel `c` on. */
export const paidSwitchOn = (f: PaidSwitches, c: PaidChannel): boolean => f[`${c}Enabled`];

function paidDecision(f: RingFacts, chosen: ChannelChoice): SmsDecision {
  if (chosen.sms === 'never') return { send: false, reason: 'not-chosen' };
  const configured = PAID_CHANNELS.filter((c) => f.configured.has(c));
  if (configured.length === 0) return { send: false, reason: 'not-configured' };
  if (!planHasPaidChannels(f.plan)) return { send: false, reason: 'plan' };
  const on = configured.filter((c) => paidSwitchOn(f, c));
  if (on.length === 0) return { send: false, reason: 'disabled' };
  if (!f.phone) return { send: false, reason: 'no-phone' };
  // Test mode behaves like live mode in every decision but never pays a provider.
  return { send: true, simulate: !f.livemode, alongside: chosen.sms === 'always', channels: on };
}

/** The free channels that count as reaching the customer (not the shop's boards). */
const countsForFree = (c: ChannelName): boolean => channelDeclaration(c).kind === 'free' && reachesCustomer(c);

/** True when the customer was reached through a free channel that counts (push, wallet or page). */
export function reachedForFree(attempts: readonly ChannelAttempt[]): boolean {
  return attempts.some((a) => a.delivered === true && countsForFree(a.channel));
}

/**
 * A free channel whose answer a paid fallback waits for: one that reaches the customer and is
 * confirmed by the attempt itself (push, page). One confirmed later (a Wallet pass) never holds
 * the fallback back.
 */
export const decidesFallback = (c: ChannelName): boolean => countsForFree(c) && channelDeclaration(c).confirmed === 'in-line';

/**
 * The paid channels only when the plan allows them and, as a fallback, when stage 1 reached the
 * customer through no free channel; a ring that chose them always sends them whatever stage 1 did.
 */
export function smsNeeded(plan: RingPlan, stageOne: readonly ChannelAttempt[]): boolean {
  return plan.sms.send && (plan.sms.alongside || !reachedForFree(stageOne));
}

/**
 * The answer of a ring: true statements about what was reached, never guesses. `rang` is "known
 * to have reached the customer"; when nothing did but a send's outcome is unknown (its sender died
 * mid-send), `channel_used` says `unknown` rather than `none`. The strongest channel that reached
 * the customer names it (the catalogue's `strength`: a push is seen at once; a pass change shows
 * on the lock screen as Apple delivers it; a page only while open).
 */
export function summarizeRing(attempts: readonly ChannelAttempt[]): { rang: boolean; channel_used: ChannelUsed; call_out_loud: boolean } {
  const reached = new Set(attempts.filter((a) => a.delivered === true).map((a) => a.channel));
  const unknown = attempts.some((a) => a.delivered === null && reachesCustomer(a.channel));
  const channel_used: ChannelUsed = STRENGTH.find((c) => reached.has(c)) ?? (unknown ? 'unknown' : 'none');
  // The boards calling the number out: a channel that reaches the shop, not the customer.
  const call_out_loud = [...reached].some((c) => !reachesCustomer(c));
  return { rang: channel_used !== 'none' && channel_used !== 'unknown', channel_used, call_out_loud };
}
