// The staff page's languages. Texts live in one JSON file per language (en.json is the reference a
// translator copies): plain strings with named placeholders, `{number}`, and for counted things an
// object of plural forms chosen by Intl.PluralRules (`{ "one": "{count} ticket", "other": … }`).
// test/unit/staff-i18n.test.ts checks that every language has exactly the English keys, the same
// placeholders and the plural forms its language needs.
import en from './en.json';

export const LANGUAGES = { en: 'English', fr: 'Français', es: 'Español', de: 'Deutsch' } as const;
export type Lang = keyof typeof LANGUAGES;
export type MessageKey = keyof typeof en;
type Entry = string | Partial<Record<Intl.LDMLPluralRule, string>>;
type Vars = Record<string, string | number>;

type Catalog = Record<string, Entry>;
// English is in the bundle (it is also every other language's fallback); the others are loaded
// when chosen, so a counter in English downloads none of them.
const CATALOGS: Partial<Record<Lang, Catalog>> = { en };
const LOADERS: Record<Exclude<Lang, 'en'>, () => Promise<{ default: Catalog }>> = {
  fr: () => import('./fr.json'),
  es: () => import('./es.json'),
  de: () => import('./de.json'),
};
const STORE_KEY = 'readybell:lang';

let current: Lang = 'en';
let plural = new Intl.PluralRules('en');

const isLang = (x: unknown): x is Lang => typeof x === 'string' && Object.hasOwn(LANGUAGES, x);

/** The page's language now (sent with requests whose answer is an email). */
export const currentLanguage = (): Lang => current;

/** The language chosen on this device, else the browser's first supported one, else English. */
export function preferredLanguage(): Lang {
  try {
    const saved = localStorage.getItem(STORE_KEY);
    if (isLang(saved)) return saved;
  } catch {
    // storage disabled: follow the browser
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLang(primary)) return primary;
  }
  return 'en';
}

/** Loads the language's texts (once) and makes it the page's language. */
export async function setLanguage(lang: Lang, remember = false): Promise<void> {
  if (CATALOGS[lang] === undefined && lang !== 'en') {
    try {
      CATALOGS[lang] = (await LOADERS[lang]()).default;
    } catch {
      lang = 'en'; // offline mid-switch: stay readable
    }
  }
  current = lang;
  plural = new Intl.PluralRules(lang);
  document.documentElement.lang = lang;
  if (remember) {
    try {
      localStorage.setItem(STORE_KEY, lang);
    } catch {
      // not kept: the browser's language applies next time
    }
  }
}

export const language = (): Lang => current;

/** The text of `key` in the current language; `vars.count` picks the plural form. */
export function t(key: MessageKey, vars: Vars = {}): string {
  const entry: Entry = CATALOGS[current]?.[key] ?? (en as Catalog)[key] ?? key;
  let text: string;
  if (typeof entry === 'string') {
    text = entry;
  } else {
    const n = Number(vars.count ?? 0);
    text = entry[plural.select(n)] ?? entry.other ?? '';
  }
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));
}
