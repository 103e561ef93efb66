// Times as counter staff read them: "4 min", "1 h 05", and clock times in the branch's zone, in
// the page's language.
import { language, t } from '../i18n/i18n.ts';

export function since(iso: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 60) return t('time.seconds', { n: s });
  const m = Math.floor(s / 60);
  if (m < 60) return t('time.minutes', { n: m });
  return t('time.hours', { h: Math.floor(m / 60), mm: String(m % 60).padStart(2, '0') });
}

export function clock(iso: string, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat(language(), { hour: '2-digit', minute: '2-digit', timeZone }).format(new Date(iso));
  } catch {
    return new Date(iso).toLocaleTimeString(language());
  }
}

export function dateTime(iso: string | null, timeZone: string): string {
  if (iso === null) return '—';
  try {
    return new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));
  } catch {
    return new Date(iso).toLocaleString(language());
  }
}
