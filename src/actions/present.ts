// Wire shapes of stored objects. Personal data (the customer's phone) never leaves through here.
import type { Ticket } from '../store/tickets.ts';
import type { Branch } from '../store/tenancy.ts';

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function ticketUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/t/${token}`;
}

export type TicketObject = ReturnType<typeof presentTicket>;

export function presentTicket(t: Ticket, publicUrl: string) {
  return {
    object: 'ticket' as const,
    id: t.id,
    display_number: t.displayNumber,
    queue: t.queue,
    status: t.status,
    url: ticketUrl(publicUrl, t.token),
    external_ref: t.externalRef,
    metadata: t.metadata ?? {},
    livemode: t.mode === 'live',
    branch: t.branchId,
    created_at: iso(t.createdAt)!,
    ready_at: iso(t.readyAt),
    collected_at: iso(t.collectedAt),
    cancelled_at: iso(t.cancelledAt),
    expired_at: iso(t.expiredAt),
    cancellation_reason: t.cancelReason,
    customer: {
      viewed_at: iso(t.viewedAt),
      notifications: t.notifications,
      acknowledged_at: iso(t.acknowledgedAt),
      snoozed_until: iso(t.snoozedUntil),
    },
    rings: t.rings,
  };
}

export function presentBranch(b: Branch, plan: string) {
  return {
    object: 'branch' as const,
    id: b.id,
    account: b.accountId,
    plan,
    name: b.name,
    timezone: b.timezone,
    default_queue: b.defaultQueue,
    expiry_hours: b.settings.expiry_hours,
    reminder_delay_seconds: b.settings.reminder_delay_seconds,
    reminder_count: b.settings.reminder_count,
    voice: b.settings.voice,
    customer_page: b.settings.customer_page,
    sms_enabled: b.settings.sms_enabled,
    created_at: iso(b.createdAt)!,
    updated_at: iso(b.updatedAt)!,
  };
}
