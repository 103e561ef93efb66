// Keyed by lower case because Intl treats zone names case-insensitively; this bounds the cache by
// the number of real zones however the names are spelled.
const formatters = new Map<string, Intl.DateTimeFormat>();

// V8 also accepts UTC offsets such as "+01:00"; those never follow daylight saving, so a branch
// configured with one would restart its numbers an hour off for half the year.
const OFFSET_ZONE = /^[+-]/;

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  const key = timeZone.toLowerCase();
  const cached = formatters.get(key);
  if (cached !== undefined) return cached;
  if (timeZone === '' || OFFSET_ZONE.test(timeZone)) {
    throw new RangeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
  }
  const created = new Intl.DateTimeFormat('en-US', {
    timeZone,
    calendar: 'iso8601',
    numberingSystem: 'latn',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  if (OFFSET_ZONE.test(created.resolvedOptions().timeZone)) {
    throw new RangeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
  }
  formatters.set(key, created);
  return created;
}

export function isValidTimeZone(tz: string): boolean {
  try {
    formatterFor(tz);
    return true;
  } catch {
    return false;
  }
}

// Every zone's offset is a whole number of minutes, so the local date can only change on a
// minute boundary: the last answer per zone is reused within the same UTC minute. Formatting
// dates through Intl is the costliest step of a create otherwise.
const lastAnswer = new Map<string, { minute: number; day: string }>();

/** The branch's local calendar date, 'YYYY-MM-DD'. Throws RangeError for an invalid zone. */
export function businessDay(nowMs: number, timeZone: string): string {
  const minute = Math.floor(nowMs / 60_000);
  const cached = lastAnswer.get(timeZone);
  if (cached !== undefined && cached.minute === minute) return cached.day;
  const day = formatDay(nowMs, timeZone);
  lastAnswer.set(timeZone, { minute, day });
  return day;
}

function formatDay(nowMs: number, timeZone: string): string {
  let year = '';
  let month = '';
  let day = '';
  for (const part of formatterFor(timeZone).formatToParts(nowMs)) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
  }
  return `${year.padStart(4, '0')}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
}
