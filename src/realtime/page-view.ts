// What the customer page shows, as data: the first HTML and every live snapshot are rendered
// from this one shape, so the page cannot show one thing on load and another once live.
// Nothing personal is in it (no external reference, no metadata); the customer's phone number
// only masked ("+44 •••• •••456"), and only where the page asks for one.
import type { Ticket } from '../core/ticket.ts';
import type { Branch } from '../store/tenancy.ts';
import type { Announcement } from '../store/announcements.ts';
import type { TicketStatus } from '../core/ticket.ts';
import { formatTime, type Language } from '../i18n/language.ts';
import { customerTexts } from '../i18n/customer-texts.ts';
import { maskPhone } from '../domain/customer-phone.ts';

export type PageState = 'created' | 'ready' | 'acknowledged' | 'snoozed' | 'collected' | 'cancelled' | 'expired';

export type AnnouncementView = { id: string; message: string; expires_in_ms: number };

export type PageView = {
  status: TicketStatus;
  state: PageState;
  open: boolean;
  number: string;
  /** The shop (branch) name: a customer holding two receipts tells them apart by it. */
  shop: string;
  /** The tab's title: the number and the shop, which tells two open tickets apart. */
  title: string;
  lang: Language;
  heading: string;
  detail: string;
  position: number | null;
  position_text: string | null;
  wait_text: string | null;
  announcements: AnnouncementView[];
  /** The ring a page should be alerting for right now (ready, not answered, not snoozed). */
  ring: { id: string; seq: number } | null;
  rung_text: string;
  snooze_minutes: number;
  /** Whether the page offers "text me" (the branch asks for phone numbers; decision 0023). */
  phone_entry: boolean;
  /** Where this ticket's texts go, masked; null when no number is known or none is asked for. */
  phone_text: string | null;
};

export const DEFAULT_SNOOZE_MINUTES = 5;

/** The tab's title, also the name of the app the page installs as (its web app manifest). */
export function pageTitle(lang: Language, number: string, shop: string): string {
  return `${customerTexts(lang).t('title', { number })} · ${shop}`;
}

export function pageState(t: Ticket, now: number): PageState {
  if (t.status !== 'ready') return t.status;
  if (t.snoozedUntil !== null && t.snoozedUntil > now) return 'snoozed';
  if (t.acknowledgedAt !== null && (t.lastRingAt === null || t.acknowledgedAt >= t.lastRingAt)) return 'acknowledged';
  return 'ready';
}

function positionText_(lang: Language, position: number): string {
  const ahead = position - 1;
  const tx = customerTexts(lang);
  return ahead === 0 ? tx.t('position.next') : tx.t('position.ahead', { count: ahead });
}

/** The same view with the ticket at another place in the queue (nothing else changed). */
export function withPosition(view: PageView, position: number): PageView {
  return { ...view, position, position_text: positionText_(view.lang, position) };
}

export function announcementViews(list: Announcement[], now: number): AnnouncementView[] {
  return list.filter((a) => a.expiresAt > now).map((a) => ({ id: a.id, message: a.message, expires_in_ms: a.expiresAt - now }));
}

export type PageViewInput = {
  ticket: Ticket;
  branch: Branch;
  lang: Language;
  now: number;
  position: number | null;
  medianPrepMs: number | null;
  announcements: Announcement[];
  ringId: string | null;
  /** phoneEntryOffered for the ticket's branch, plan and mode. */
  phoneEntry: boolean;
};

export function buildPageView(i: PageViewInput): PageView {
  const { ticket: t, branch, lang, now } = i;
  const tx = customerTexts(lang);
  const state = pageState(t, now);
  const custom = branch.settings.customer_page.messages;
  let detail = tx.t(`detail.${state}`, state === 'snoozed' ? { time: formatTime(lang, t.snoozedUntil!, branch.timezone) } : {});
  if (state === 'created' && custom.waiting) detail = custom.waiting;
  if (state === 'ready' && custom.ready) detail = custom.ready;
  if ((state === 'collected' || state === 'cancelled' || state === 'expired') && custom.closed) detail = custom.closed;
  let positionText: string | null = null;
  let waitText: string | null = null;
  if (state === 'created' && i.position !== null) {
    positionText = positionText_(lang, i.position);
    if (i.medianPrepMs !== null) {
      const left = i.medianPrepMs - (now - t.createdAt);
      waitText = left < 60_000 ? tx.t('wait.soon') : tx.t('wait.minutes', { count: Math.ceil(left / 60_000) });
    }
  }
  const open = t.status === 'created' || t.status === 'ready';
  return {
    status: t.status,
    state,
    open,
    number: t.displayNumber,
    shop: branch.name,
    title: pageTitle(lang, t.displayNumber, branch.name),
    lang,
    heading: tx.t(`heading.${state}`),
    detail,
    position: state === 'created' ? i.position : null,
    position_text: positionText,
    wait_text: waitText,
    announcements: open ? announcementViews(i.announcements, now) : [],
    ring: state === 'ready' && i.ringId !== null ? { id: i.ringId, seq: t.rings } : null,
    rung_text: tx.t('rung', { number: t.displayNumber }),
    snooze_minutes: DEFAULT_SNOOZE_MINUTES,
    phone_entry: i.phoneEntry && open,
    phone_text: i.phoneEntry && open && t.customerPhone !== null ? tx.t('phone.on', { phone: maskPhone(t.customerPhone) }) : null,
  };
}
