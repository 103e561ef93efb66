// The CSV export of a period's tickets (PRODUCT.md §13) for owners who use a spreadsheet: one row
// per ticket created in the period, oldest first, with its times, queue, order number, rings and
// how the ready ring reached the customer. Nothing personal: no phone number, no metadata, no
// customer link, no cancellation text (a POS may write a name there).
import type { Read } from '../core/ctx.ts';
import { scopeOf, type InsightsQuery } from './read-insights.ts';
import { exportPage, EXPORT_PAGE_SIZE, type ExportedTicket } from '../store/insights-reads.ts';
import { addDays, localDateTime, startOfDay } from '../domain/local-time.ts';

export const CSV_COLUMNS = [
  'id',
  'display_number',
  'queue',
  'status',
  'external_ref',
  'created_at',
  'created_local',
  'ready_at',
  'collected_at',
  'cancelled_at',
  'expired_at',
  'preparation_seconds',
  'pickup_seconds',
  'rings',
  'channel_used',
  'notifications',
  'viewed_at',
  'acknowledged_at',
] as const;

const iso = (ms: number | null): string => (ms === null ? '' : new Date(ms).toISOString());
const seconds = (from: number | null, to: number | null): string =>
  from === null || to === null ? '' : String(Math.round((to - from) / 1000));

/**
 * Taken for a formula by some spreadsheet: =, +, - or @ as the first character that is not blank
 * (Unicode white space, line breaks, control and format characters such as U+200B), after folding
 * full-width and small forms (＝, ﹢) to ASCII as NFKC does. OWASP's CSV-injection list names only
 * the ASCII characters at position one, but spreadsheets skip leading blanks and some read the
 * full-width signs as operators (issue #25).
 */
const FORMULA_START = /^[\s\p{Cc}\p{Cf}]*[=+\-@]/u;

/**
 * A field as spreadsheets read it: quoted when it holds a separator, a quote or a line break, and
 * kept from being taken for a formula by a leading apostrophe.
 */
export function csvField(value: string): string {
  // Most cells are ASCII, which NFKC leaves as it is: only others are folded.
  const formula = FORMULA_START.test(value) || (/[^\p{ASCII}]/u.test(value) && FORMULA_START.test(value.normalize('NFKC')));
  const safe = formula ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvRow(t: ExportedTicket, timezone: string): string {
  const cells: Record<(typeof CSV_COLUMNS)[number], string> = {
    id: t.id,
    display_number: t.display_number,
    queue: t.queue,
    status: t.status,
    external_ref: t.external_ref ?? '',
    created_at: iso(t.created_at),
    created_local: localDateTime(t.created_at, timezone),
    ready_at: iso(t.ready_at),
    collected_at: iso(t.collected_at),
    cancelled_at: iso(t.cancelled_at),
    expired_at: iso(t.expired_at),
    preparation_seconds: seconds(t.created_at, t.ready_at),
    pickup_seconds: seconds(t.ready_at, t.collected_at),
    rings: String(t.rings),
    channel_used: t.channel_used ?? '',
    notifications: t.notifications,
    viewed_at: iso(t.viewed_at),
    acknowledged_at: iso(t.acknowledged_at),
  };
  return CSV_COLUMNS.map((c) => csvField(cells[c])).join(',');
}

export type TicketExport = { filename: string; chunks: AsyncIterable<string> };

/**
 * Checks the request at once (role, period), then hands the rows as they are read, a page at a
 * time: a year of a busy branch is hundreds of thousands of rows, never held in memory together.
 * A UTF-8 byte order mark comes first, which is how Excel knows the file is UTF-8.
 */
export const exportTickets: Read<InsightsQuery, TicketExport> = async ({ ctx, input: q }) => {
  const s = await scopeOf(ctx, q);
  const fromMs = startOfDay(s.period.from, s.timezone);
  const toMs = startOfDay(addDays(s.period.to, 1), s.timezone);
  async function* chunks(): AsyncGenerator<string> {
    yield `\uFEFF${CSV_COLUMNS.join(',')}\r\n`;
    let after: string | undefined;
    for (;;) {
      const page = await exportPage(ctx.services.db, ctx.branchId, ctx.mode, { fromMs, toMs, after, queue: s.queue });
      if (page.length === 0) return;
      yield page.map((t) => `${csvRow(t, s.timezone)}\r\n`).join('');
      if (page.length < EXPORT_PAGE_SIZE) return;
      after = page[page.length - 1]!.id;
    }
  }
  const queue = s.queue === undefined ? '' : `-${s.queue}`;
  return { filename: `readybell-tickets${queue}-${s.period.from}-to-${s.period.to}.csv`, chunks: chunks() };
};
