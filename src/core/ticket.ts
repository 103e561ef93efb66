// A ticket as every layer sees it: the store reads and writes it, actions change it, channels
// ring it, pages and boards show it, the presenters turn it into the API's ticket object.
import type { SubscribeChannel } from './channel-catalogue.ts';
import type { Mode } from './tenancy.ts';

export type TicketStatus = 'created' | 'ready' | 'collected' | 'cancelled' | 'expired';

/** Where the ticket's latest text is, from the provider's receipts (decision 0026; src/domain/sms-status.ts). */
export const SMS_STATUSES = ['queued', 'sent', 'delivered', 'undelivered', 'failed'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];

export type Ticket = {
  id: string;
  branchId: string;
  mode: Mode;
  queue: string;
  number: number;
  displayNumber: string;
  status: TicketStatus;
  token: string;
  externalRef: string | null;
  customerPhone: string | null;
  metadata: Record<string, string> | null;
  createdAt: number;
  readyAt: number | null;
  collectedAt: number | null;
  cancelledAt: number | null;
  expiredAt: number | null;
  closedAt: number | null;
  cancelReason: string | null;
  viewedAt: number | null;
  notifications: 'none' | SubscribeChannel;
  acknowledgedAt: number | null;
  snoozedUntil: number | null;
  rings: number;
  lastRingAt: number | null;
  expiresAt: number;
  updatedAt: number;
  /** The delivery state of the ticket's latest text; read with the ticket, written only by store/sms-messages.ts (absent: not read). */
  smsStatus?: SmsStatus | null;
};
