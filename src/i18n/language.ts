// Picks the page language: the best match of the browser's Accept-Language among the supported
// languages, else the branch's default. Only the primary subtag matters ("fr-CA" reads "fr").
import { SUPPORTED_LANGUAGES } from '../domain/branch-settings.ts';

export type Language = (typeof SUPPORTED_LANGUAGES)[number];

export function isLanguage(v: unknown): v is Language {
  return typeof v === 'string' && (SUPPORTED_LANGUAGES as readonly string[]).includes(v);
}

export function pickLanguage(acceptLanguage: string | undefined, fallback: string): Language {
  const base: Language = isLanguage(fallback) ? fallback : 'en';
  if (acceptLanguage === undefined || acceptLanguage.length > 1000) return base;
  let best: Language | null = null;
  let bestQ = 0;
  for (const part of acceptLanguage.split(',')) {
    const [tag, ...params] = part.trim().split(';');
    const primary = (tag ?? '').trim().toLowerCase().split('-')[0] ?? '';
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m !== null) q = Number(m[1]);
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    if (primary === '*' && q > bestQ) {
      best = base;
      bestQ = q;
    } else if (isLanguage(primary) && q > bestQ) {
      best = primary;
      bestQ = q;
    }
  }
  return best ?? base;
}

/** BCP 47 tags for speech synthesis voices. */
export const SPEECH_LOCALE: Record<Language, string> = {
  en: 'en-GB',
  fr: 'fr-FR',
  es: 'es-ES',
  de: 'de-DE',
  it: 'it-IT',
  pt: 'pt-PT',
  nl: 'nl-NL',
  ar: 'ar-SA',
};

/**
 * Locales for times (a clock, "we'll ring you again at 14:05"). Latin digits in Arabic too: the
 * ticket numbers beside them, on the receipt and the board, are printed with Latin digits.
 */
export const FORMAT_LOCALE: Record<Language, string> = {
  en: 'en-GB',
  fr: 'fr-FR',
  es: 'es-ES',
  de: 'de-DE',
  it: 'it-IT',
  pt: 'pt-PT',
  nl: 'nl-NL',
  ar: 'ar-u-nu-latn',
};

const RTL: ReadonlySet<Language> = new Set(['ar']);

export const textDirection = (lang: Language): 'ltr' | 'rtl' => (RTL.has(lang) ? 'rtl' : 'ltr');

/** ` dir="rtl"` for a right-to-left language's <html>, nothing otherwise (ltr is the default). */
export const dirAttribute = (lang: Language): string => (RTL.has(lang) ? ' dir="rtl"' : '');

/** A local time as hours and minutes in the branch's zone. */
export function formatTime(lang: Language, at: number, timeZone: string): string {
  return new Intl.DateTimeFormat(FORMAT_LOCALE[lang], { hour: '2-digit', minute: '2-digit', timeZone }).format(at);
}
