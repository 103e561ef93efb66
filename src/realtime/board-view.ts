// What a display board shows, as data: the first HTML and every live snapshot use this shape.
import type { BoardTicket } from '../store/live-queries.ts';
import type { Announcement } from '../store/announcements.ts';
import type { Display } from '../store/displays.ts';
import type { Language } from '../i18n/language.ts';
import { BOARD_TEXTS, type BoardTexts } from '../i18n/board-texts.ts';
import { announcementViews, type AnnouncementView } from './page-view.ts';

/** Rung this many times (the ready ring and the reminders) and still not collected: "missed". */
export const MISSED_AFTER_RINGS = 3;
/** Ready numbers stay highlighted this long after becoming ready. */
export const HIGHLIGHT_MS = 60_000;
const MAX_PREPARING = 40;
const MAX_READY = 20;
const MAX_MISSED = 10;

export type BoardView = {
  name: string;
  lang: Language;
  voice: boolean;
  texts: Pick<BoardTexts, 'preparing' | 'ready' | 'missed'>;
  preparing: string[];
  ready: Array<{ number: string; age_ms: number }>;
  missed: string[];
  announcements: AnnouncementView[];
  highlight_ms: number;
};

export function buildBoardView(display: Display, lang: Language, voice: boolean, tickets: BoardTicket[], announcements: Announcement[], now: number): BoardView {
  const shown = tickets.filter((t) => display.queues.length === 0 || display.queues.includes(t.queue));
  const readyAll = shown.filter((t) => t.status === 'ready').sort((a, b) => (b.readyAt ?? 0) - (a.readyAt ?? 0));
  const texts = BOARD_TEXTS[lang];
  return {
    name: display.name,
    lang,
    voice,
    texts: { preparing: texts.preparing, ready: texts.ready, missed: texts.missed },
    preparing: shown.filter((t) => t.status === 'created').slice(0, MAX_PREPARING).map((t) => t.displayNumber),
    ready: readyAll.filter((t) => t.rings < MISSED_AFTER_RINGS).slice(0, MAX_READY).map((t) => ({ number: t.displayNumber, age_ms: Math.max(0, now - (t.readyAt ?? now)) })),
    missed: readyAll.filter((t) => t.rings >= MISSED_AFTER_RINGS).slice(0, MAX_MISSED).map((t) => t.displayNumber),
    announcements: announcementViews(announcements, now),
    highlight_ms: HIGHLIGHT_MS,
  };
}
