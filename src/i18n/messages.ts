// Message files (src/i18n/messages/<surface>/<lang>.json, see README.md there): plain JSON a
// translator can edit, one text per key, `{name}` placeholders, and plurals as an object of CLDR
// categories chosen by Intl.PluralRules on the `count` value. Every file is checked against the
// English one when it is loaded, so a broken translation stops the server at start, not a page.
import type { Language } from './language.ts';

export const PLURAL_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;
export type PluralForms = { [c in (typeof PLURAL_CATEGORIES)[number]]?: string };
export type Message = string | PluralForms;
export type Catalog = Record<string, Message>;
export type Values = Record<string, string | number>;

const isPlural = (m: Message): m is PluralForms => typeof m === 'object' && m !== null;

/** The `{name}` placeholders a text uses. */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))].sort();
}

/**
 * What is wrong with a translation, measured against the English file: missing or extra keys, a
 * text that is not a string, placeholders that differ, plural categories other than the ones the
 * language has. Empty when the file is good.
 */
export function catalogProblems(lang: Language, english: Catalog, catalog: Catalog): string[] {
  const problems: string[] = [];
  const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories as string[];
  for (const key of Object.keys(english)) if (!(key in catalog)) problems.push(`${key}: missing`);
  for (const [key, msg] of Object.entries(catalog)) {
    const en = english[key];
    if (en === undefined) {
      problems.push(`${key}: not in the English file`);
      continue;
    }
    const want = placeholders(isPlural(en) ? (en.other ?? '') : en).join(',');
    if (isPlural(en) !== isPlural(msg)) {
      problems.push(`${key}: ${isPlural(en) ? 'must be plural forms' : 'must be one text'}`);
    } else if (isPlural(msg)) {
      const have = Object.keys(msg).sort().join(',');
      if (have !== [...categories].sort().join(','))
        problems.push(`${key}: plural forms must be exactly ${categories.join(', ')} (has ${have})`);
      for (const [c, text] of Object.entries(msg)) {
        if (typeof text !== 'string' || text === '') problems.push(`${key}.${c}: must be a text`);
        // A form may leave the number out ("one order"), never add a placeholder; "other" has them all.
        else if (c === 'other' ? placeholders(text).join(',') !== want : !placeholders(text).every((p) => want.split(',').includes(p))) {
          problems.push(`${key}.${c}: placeholders {${placeholders(text).join('}, {')}} instead of {${want.split(',').join('}, {')}}`);
        }
      }
    } else if (typeof msg !== 'string' || msg === '') {
      problems.push(`${key}: must be a text`);
    } else if (placeholders(msg).join(',') !== want) {
      problems.push(`${key}: placeholders {${placeholders(msg).join('}, {')}} instead of {${want.split(',').join('}, {')}}`);
    }
  }
  return problems;
}

// First strong isolate … pop directional isolate: a number or a time inside right-to-left text
// keeps its own order ("A-42", "14:05") whatever punctuation sits beside it.
const FSI = '\u2068';
const PDI = '\u2069';

export type Translator<K extends string> = {
  lang: Language;
  /** The text of `key` with its placeholders filled; plural texts pick their form by `values.count`. */
  t(key: K, values?: Values): string;
};

export function translator<K extends string>(lang: Language, catalog: Record<K, Message>, rtl: boolean): Translator<K> {
  const plural = new Intl.PluralRules(lang);
  return {
    lang,
    t(key, values = {}) {
      const msg = catalog[key];
      let text: string;
      if (isPlural(msg)) {
        const count = values.count;
        if (typeof count !== 'number') throw new TypeError(`${key} needs a numeric count`);
        text = msg[plural.select(count)] ?? msg.other!;
      } else {
        text = msg;
      }
      return text.replace(/\{(\w+)\}/g, (m, k: string) => {
        if (!(k in values)) return m;
        const v = String(values[k]);
        return rtl ? FSI + v + PDI : v;
      });
    },
  };
}

/** Checks every language's file against English; throws with the list of problems if any. */
export function checkedCatalogs<C extends Catalog>(surface: string, catalogs: Record<Language, Catalog>): Record<Language, C> {
  const problems = Object.entries(catalogs).flatMap(([lang, c]) =>
    catalogProblems(lang as Language, catalogs.en, c).map((p) => `${surface}/${lang}.json ${p}`),
  );
  if (problems.length > 0) throw new Error(`Message files are broken:\n${problems.join('\n')}`);
  return catalogs as Record<Language, C>;
}
