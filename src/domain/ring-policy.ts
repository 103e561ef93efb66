// Which channels a ring tries, in which order, and what the answer says (PRODUCT.md §2). Pure, so
// every combination is unit-tested; the ringer (channels/channel-ringer.ts) only carries it out.
//
// Stage 1 fans out in parallel to everything free: push (each subscription), wallet (a pass a
// device registered), page (an open customer page) and display (the shop's boards). Stage 2 is SMS, the only paid channel: sent only
// when stage 1 reached the customer through neither push nor page, only on the business plan, only
// with a phone number and only if the branch has SMS on. Test mode simulates the SMS.
// Each ring may narrow that (ChannelChoice: some free channels only, SMS never or always).
import type { ChannelAttempt, ChannelName, ChannelUsed } from '../core/ring.ts';
import type { Plan } from '../core/tenancy.ts';
import { EVERY_CHANNEL } from './channel-choice.ts';
import type { ChannelChoice } from '../core/ring.ts';

export type RingFacts = {
  /** Channels this service has configured (a ringer works with whatever it is given). */
  configured: ReadonlySet<ChannelName>;
  /** A ring is only for a ticket that is still ready; a closed ticket is never rung. */
  ticketReady: boolean;
  /** Whether an open customer page is known; null when unknown (the page channel finds out). */
  pageOpen: boolean | null;
  pushSubscriptions: number;
  phone: boolean;
  plan: Plan;
  smsEnabled: boolean;
  livemode: boolean;
};

/** `alongside`: the ring chose SMS even if push or page reaches the customer, so it goes out with stage 1. */
export type SmsDecision =
  | { send: true; simulate: boolean; alongside: boolean }
  | { send: false; reason: 'ticket-not-ready' | 'not-chosen' | 'not-configured' | 'plan' | 'disabled' | 'no-phone' };

export type RingPlan = { fanOut: ChannelName[]; sms: SmsDecision };

/** Stage-1 order: also the order of `attempts` in a ring's result. */
export const FAN_OUT_ORDER: readonly ChannelName[] = ['push', 'wallet', 'page', 'display'];

export function planRing(f: RingFacts, chosen: ChannelChoice = EVERY_CHANNEL): RingPlan {
  if (!f.ticketReady) return { fanOut: [], sms: { send: false, reason: 'ticket-not-ready' } };
  const fanOut = FAN_OUT_ORDER.filter((c) => {
    if (!f.configured.has(c) || !(chosen.free as readonly ChannelName[]).includes(c)) return false;
    if (c === 'push') return f.pushSubscriptions > 0;
    if (c === 'page') return f.pageOpen !== false;
    return true;
  });
  return { fanOut, sms: smsDecision(f, chosen) };
}

/** SMS, the one paid channel, is in the business plan only. */
export function planHasSms(plan: Plan): boolean {
  return plan === 'business';
}

function smsDecision(f: RingFacts, chosen: ChannelChoice): SmsDecision {
  if (chosen.sms === 'never') return { send: false, reason: 'not-chosen' };
  if (!f.configured.has('sms')) return { send: false, reason: 'not-configured' };
  if (!planHasSms(f.plan)) return { send: false, reason: 'plan' };
  if (!f.smsEnabled) return { send: false, reason: 'disabled' };
  if (!f.phone) return { send: false, reason: 'no-phone' };
  // Test mode behaves like live mode in every decision but never pays a provider.
  return { send: true, simulate: !f.livemode, alongside: chosen.sms === 'always' };
}

/** True when the customer was reached through a free channel that counts (push, wallet or page). */
export function reachedForFree(attempts: readonly ChannelAttempt[]): boolean {
  return attempts.some((a) => a.delivered === true && (a.channel === 'push' || a.channel === 'wallet' || a.channel === 'page'));
}

/**
 * SMS only when the plan allows it and, as a fallback, when stage 1 reached the customer neither
 * by push nor page; a ring that chose SMS always sends it whatever stage 1 did.
 */
export function smsNeeded(plan: RingPlan, stageOne: readonly ChannelAttempt[]): boolean {
  return plan.sms.send && (plan.sms.alongside || !reachedForFree(stageOne));
}

/** A push is seen at once; a pass change shows on the lock screen as Apple delivers it; a page only while open. */
const STRENGTH: readonly ChannelUsed[] = ['push', 'wallet', 'page', 'sms'];

/**
 * The answer of a ring: true statements about what was reached, never guesses. `rang` is "known
 * to have reached the customer"; when nothing did but a send's outcome is unknown (its sender died
 * mid-send), `channel_used` says `unknown` rather than `none`.
 */
export function summarizeRing(attempts: readonly ChannelAttempt[]): { rang: boolean; channel_used: ChannelUsed; call_out_loud: boolean } {
  const reached = new Set(attempts.filter((a) => a.delivered === true).map((a) => a.channel));
  const unknown = attempts.some((a) => a.delivered === null && a.channel !== 'display');
  const channel_used = STRENGTH.find((c) => reached.has(c as ChannelName)) ?? (unknown ? 'unknown' : 'none');
  return { rang: STRENGTH.includes(channel_used), channel_used, call_out_loud: reached.has('display') };
}
