// What a text's delivery receipts mean (decision 0026). A Twilio-compatible provider reports a
// message's life through status callbacks: accepted/queued, sending/sent, then one final status.
// Callbacks can arrive out of order (a `sent` after its `delivered`), so a status only ever moves
// forward: queued → sent → a final one, and the first final status stays.

import type { SmsStatus } from '../core/ticket.ts';

/** The provider's status words, read as ours; null for one that says nothing about delivery (`receiving`, …). */
const PROVIDER: Record<string, SmsStatus> = {
  accepted: 'queued',
  scheduled: 'queued',
  queued: 'queued',
  sending: 'sent',
  sent: 'sent',
  delivered: 'delivered',
  read: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
  canceled: 'failed',
};

export function smsStatusFromProvider(raw: string): SmsStatus | null {
  return PROVIDER[raw.trim().toLowerCase()] ?? null;
}

/** How far along a status is: a callback never moves a message back. */
export function smsStatusRank(s: SmsStatus): number {
  return s === 'queued' ? 0 : s === 'sent' ? 1 : 2;
}

/** The text did not reach the phone, and nothing will change that: the escalation ladder may try the next step. */
export const isSmsFailure = (s: SmsStatus): boolean => s === 'undelivered' || s === 'failed';
