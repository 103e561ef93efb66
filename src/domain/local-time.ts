// A branch's local calendar: the local date and hour of an instant (the ticket numbers' business
// day, insights), the instant a local date begins, and which zone names are accepted. Zones are
// IANA names only: V8 also accepts UTC offsets such as "+01:00", which never follow daylight
// saving, so a branch configured with one would restart its numbers an hour off for half the year.
// Every answer follows the zone's rules at that instant, so a day of a daylight-saving change has
// 23 or 25 hours. The one cache of Intl formatters for all of them is here.

export type LocalHour = { day: string; hour: number };

const OFFSET_ZONE = /^[+-]/;

// Keyed by lower case because Intl treats zone names case-insensitively; this bounds the cache by
// the number of real zones however the names are spelled.
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's wall clock to the hour, or with `toSecond` to the second; made once per zone and kept. Throws RangeError for what is not an IANA zone. */
function formatterFor(timeZone: string, toSecond = false): Intl.DateTimeFormat {
  const key = `${toSecond ? 's' : 'h'} ${timeZone.toLowerCase()}`;
  let f = formatters.get(key);
  if (f === undefined) {
    if (timeZone === '' || OFFSET_ZONE.test(timeZone)) throw new RangeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      calendar: 'iso8601',
      numberingSystem: 'latn',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      ...(toSecond ? { minute: '2-digit', second: '2-digit' } : {}),
    });
    if (OFFSET_ZONE.test(f.resolvedOptions().timeZone)) throw new RangeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
    formatters.set(key, f);
  }
  return f;
}

export function isValidTimeZone(tz: string): boolean {
  try {
    formatterFor(tz);
    return true;
  } catch {
    return false;
  }
}

// Every zone's offset is a whole number of minutes, so the local hour can only change on a minute
// boundary: the last answer per zone is reused within the same UTC minute (a create pays for
// Intl's formatting once a minute, not once per ticket).
const lastAnswer = new Map<string, { minute: number; local: LocalHour }>();

/** The branch's local date ('YYYY-MM-DD') and hour (0–23) at `ms`. Throws RangeError for an invalid zone. */
export function localHour(ms: number, timeZone: string): LocalHour {
  const minute = Math.floor(ms / 60_000);
  const cached = lastAnswer.get(timeZone);
  if (cached !== undefined && cached.minute === minute) return cached.local;
  let year = '';
  let month = '';
  let day = '';
  let hour = '';
  for (const part of formatterFor(timeZone).formatToParts(ms)) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
    else if (part.type === 'hour') hour = part.value;
  }
  const local = { day: `${year.padStart(4, '0')}-${month}-${day}`, hour: Number(hour) % 24 };
  lastAnswer.set(timeZone, { minute, local });
  return local;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `s` is a real calendar date written YYYY-MM-DD. */
export function isDate(s: string): boolean {
  const m = DAY.exec(s);
  if (m === null) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

const utcMidnight = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** The date `n` days after `day` (before, when negative). */
export function addDays(day: string, n: number): string {
  return new Date(utcMidnight(day) + n * 86_400_000).toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both counted: 1 when they are the same date. */
export function daysBetween(from: string, to: string): number {
  return Math.round((utcMidnight(to) - utcMidnight(from)) / 86_400_000) + 1;
}

/** ISO weekday of a date: 1 Monday … 7 Sunday. */
export function weekday(day: string): number {
  return ((new Date(utcMidnight(day)).getUTCDay() + 6) % 7) + 1;
}

/**
 * The first instant (UTC ms) whose local date is `day` or later. Usually local midnight; where a
 * daylight-saving change skips midnight (some zones change at 00:00), the first minute that exists.
 * No zone is more than 14 hours from UTC, so the answer lies within a day of UTC midnight, and a
 * search by minutes finds it in a dozen steps.
 */
export function startOfDay(day: string, timeZone: string): number {
  let lo = Math.floor((utcMidnight(day) - 15 * 3_600_000) / 60_000);
  let hi = Math.floor((utcMidnight(day) + 15 * 3_600_000) / 60_000);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (localHour(mid * 60_000, timeZone).day >= day) hi = mid;
    else lo = mid + 1;
  }
  return lo * 60_000;
}

/** `ms` on the branch's wall clock, 'YYYY-MM-DD HH:MM:SS' (what a spreadsheet reads as a date and time). */
export function localDateTime(ms: number, timeZone: string): string {
  const f = formatterFor(timeZone, true);
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(ms)) p[part.type] = part.value;
  return `${(p.year ?? '').padStart(4, '0')}-${p.month}-${p.day} ${String(Number(p.hour) % 24).padStart(2, '0')}:${p.minute}:${p.second}`;
}

/**
 * localHour for many instants of one zone (a rebuild reads every ticket of a branch): the zone's
 * offset is looked up once per UTC hour, and an instant of an hour without a change of offset is
 * placed by arithmetic, not by Intl (some 30 times faster). An hour holding a change asks Intl.
 */
export class LocalCalendar {
  private readonly timeZone: string;
  private readonly offsets = new Map<number, number | null>();

  constructor(timeZone: string) {
    localHour(0, timeZone); // refuses what is not an IANA zone
    this.timeZone = timeZone;
  }

  hourOf(ms: number): LocalHour {
    const utcHour = Math.floor(ms / 3_600_000);
    let offset = this.offsets.get(utcHour);
    if (offset === undefined) {
      const start = offsetAt(utcHour * 3_600_000, this.timeZone);
      offset = start === offsetAt(utcHour * 3_600_000 + 3_599_999, this.timeZone) ? start : null;
      this.offsets.set(utcHour, offset);
    }
    if (offset === null) return localHour(ms, this.timeZone);
    const wall = new Date(ms + offset);
    return { day: wall.toISOString().slice(0, 10), hour: wall.getUTCHours() };
  }
}

/** The zone's offset from UTC at `ms`, in ms (to the second: every offset in use is whole minutes). */
function offsetAt(ms: number, timeZone: string): number {
  const wall = localDateTime(ms, timeZone);
  return Date.parse(`${wall.replace(' ', 'T')}Z`) - Math.floor(ms / 1000) * 1000;
}
