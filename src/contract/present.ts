// Wire shapes of stored objects. Personal data (the customer's phone) never leaves through here.
// Each returns the type of its object's schema (schemas.ts), the schema that documents the object
// and types the staff page and the client: a field missing on either side is a type error here.
// Presenters and schemas are the API's contract (src/contract/): below the verbs, the channels and
// the routes that all hand these objects out.
import type { Ticket } from '../core/ticket.ts';
import type { Branch } from '../store/tenancy.ts';
import type { BranchObject, TicketObject } from './schemas.ts';
import { pickPaidSwitches } from '../core/channel-catalogue.ts';
import { isLanguage, type Language } from '../i18n/language.ts';

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function ticketUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/t/${token}`;
}

/**
 * The ticket each presented object was made from: an event about a ticket carries it typed
 * (actions/record-event.ts), so the modules' ticket hooks never read an event's body.
 */
const presentedFrom = new WeakMap<TicketObject, Ticket>();

export const ticketPresentedAs = (object: unknown): Ticket | undefined =>
  typeof object === 'object' && object !== null ? presentedFrom.get(object as TicketObject) : undefined;

export function presentTicket(t: Ticket, publicUrl: string): TicketObject {
  const object: TicketObject = {
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
    sms_status: t.smsStatus ?? null,
  };
  presentedFrom.set(object, t);
  return object;
}

/** Stored languages were checked when set; one that is not supported reads as English, as on the pages. */
const language = (stored: string): Language => (isLanguage(stored) ? stored : 'en');

export function presentBranch(b: Branch, plan: BranchObject['plan']): BranchObject {
  const page = b.settings.customer_page;
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
    escalation_ladder:
      b.settings.escalation_ladder?.map((s) => ({
        after_seconds: s.after_seconds,
        channels: [...s.channels],
        sms: s.sms,
        call_out: s.call_out,
      })) ?? null,
    voice: { enabled: b.settings.voice.enabled, language: language(b.settings.voice.language) },
    customer_page: {
      language: language(page.language),
      messages: { waiting: page.messages.waiting, ready: page.messages.ready, closed: page.messages.closed },
      phone_entry: page.phone_entry,
      phone_country: page.phone_country,
    },
    ...pickPaidSwitches(b.settings),
    created_at: iso(b.createdAt)!,
    updated_at: iso(b.updatedAt)!,
  };
}
