// What a display board shows, as data: the first HTML and every live snapshot use this shape.
import type { BoardTicket } from '../store/live-queries.ts';
import type { Announcement } from '../store/announcements.ts';
import type { Display } from '../store/displays.ts';
import type { Language } from '../i18n/language.ts';
import { announcementViews, type AnnouncementView } from './page-view.ts';

/** Rung this many times (the ready ring and the reminders) and still not collected: "missed". */
export const MISSED_AFTER_RINGS = 3;
/** Ready numbers stay highlighted this long after becoming ready. */
export const HIGHLIGHT_MS = 60_000;
const MAX_PREPARING = 40;
/** The ready column fits this many numbers on one screen, still readable across a room. */
export const MAX_READY = 30;
const MAX_MISSED = 10;

export type BoardView = {
  name: string;
  /** The shop (branch) name, shown on the board. */
  shop: string;
  /** The branch's IANA time zone, for the board's clock. */
  timezone: string;
  lang: Language;
  voice: boolean;
  preparing: string[];
  ready: Array<{ number: string; age_ms: number }>;
  missed: string[];
  announcements: AnnouncementView[];
  highlight_ms: number;
};

export type BoardPlace = { shop: string; timezone: string; lang: Language; voice: boolean };

export function buildBoardView(
  display: Display,
  place: BoardPlace,
  tickets: BoardTicket[],
  announcements: Announcement[],
  now: number,
): BoardView {
  const shown = tickets.filter((t) => display.queues.length === 0 || display.queues.includes(t.queue));
  const readyAll = shown.filter((t) => t.status === 'ready').sort((a, b) => (b.readyAt ?? 0) - (a.readyAt ?? 0));
  return {
    name: display.name,
    ...place,
    preparing: shown
      .filter((t) => t.status === 'created')
      .slice(0, MAX_PREPARING)
      .map((t) => t.displayNumber),
    ready: readyAll
      .filter((t) => t.rings < MISSED_AFTER_RINGS)
      .slice(0, MAX_READY)
      .map((t) => ({ number: t.displayNumber, age_ms: Math.max(0, now - (t.readyAt ?? now)) })),
    missed: readyAll
      .filter((t) => t.rings >= MISSED_AFTER_RINGS)
      .slice(0, MAX_MISSED)
      .map((t) => t.displayNumber),
    announcements: announcementViews(announcements, now),
    highlight_ms: HIGHLIGHT_MS,
  };
}
