// Figures as an owner reads them, in the page's language: counts, durations ("7 min 20 s"),
// shares ("62 %"), dates of the branch's calendar ("Tue 17 Nov") and a change against another
// period, saying whether it is better or worse.
import { language, t } from '../i18n/i18n.ts';

export const count = (n: number): string => new Intl.NumberFormat(language()).format(n);

/** A share as a percentage: whole, unless it is under 1 % and not nothing (0.3 %, not 0 %). */
export function share(x: number | null): string {
  if (x === null) return '—';
  const digits = x !== 0 && Math.abs(x) < 0.01 ? 1 : 0;
  return new Intl.NumberFormat(language(), { style: 'percent', maximumFractionDigits: digits }).format(x);
}

export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return t('time.seconds', { n: seconds });
  const m = Math.floor(seconds / 60);
  if (m < 60) return seconds % 60 === 0 || m >= 10 ? t('time.minutes', { n: m }) : t('insights.minSec', { m, s: seconds % 60 });
  return t('time.hours', { h: Math.floor(m / 60), mm: String(m % 60).padStart(2, '0') });
}

export const minutes = (seconds: number | null): number | null => (seconds === null ? null : Math.round(seconds / 6) / 10);

/** A date of the branch's calendar (YYYY-MM-DD) as "Tue 17 Nov". */
export function shortDate(day: string, withWeekday = true): string {
  const d = new Date(`${day}T12:00:00Z`);
  return new Intl.DateTimeFormat(language(), {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    ...(withWeekday ? { weekday: 'short' } : {}),
  }).format(d);
}

/** Mon … Sun in the page's language (1 = Monday). */
export function weekdayName(n: number, width: 'short' | 'long' = 'short'): string {
  return new Intl.DateTimeFormat(language(), { timeZone: 'UTC', weekday: width }).format(new Date(Date.UTC(2026, 10, 15 + n))); // 16 Nov 2026 is a Monday
}

/** An hour of the day as the page's clocks show times ("4:00 PM" in English, "16:00" in French), 24 as midnight. */
export function hourLabel(h: number): string {
  return new Intl.DateTimeFormat(language(), { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(Date.UTC(2026, 0, 1, h % 24));
}

/** Today's date in the branch's time zone, YYYY-MM-DD. */
export function today(timeZone: string, now = Date.now()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** `direction`: which way the number moved (the arrow); `tone`: whether that is good (the colour). */
export type Change = { text: string; tone: 'better' | 'worse' | 'same' | 'none'; direction: 'up' | 'down' | 'none' };

/**
 * How `now` compares with `then`: a percentage for counts, a difference for durations. `goodWhen`
 * says which way is better (more tickets collected; less time to prepare).
 */
export function change(now: number | null, then: number | null, kind: 'count' | 'seconds' | 'share', goodWhen: 'up' | 'down'): Change {
  if (now === null || then === null) return { text: t('insights.noComparison'), tone: 'none', direction: 'none' };
  const diff = now - then;
  if (diff === 0) return { text: t('insights.same'), tone: 'same', direction: 'none' };
  const tone = diff > 0 === (goodWhen === 'up') ? 'better' : 'worse';
  const direction = diff > 0 ? 'up' : 'down';
  const sign = diff > 0 ? '+' : '−';
  if (kind === 'seconds') return { text: `${sign}${duration(Math.abs(diff))}`, tone, direction };
  if (kind === 'share') return { text: t('insights.points', { sign, n: Math.round(Math.abs(diff) * 100) }), tone, direction };
  if (then === 0) return { text: `${sign}${count(Math.abs(diff))}`, tone, direction };
  return { text: `${sign}${share(Math.abs(diff / then))}`, tone, direction };
}
