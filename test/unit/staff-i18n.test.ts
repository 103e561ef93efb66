// The staff page's message files (web/staff/src/i18n/<lang>.json) are what a translator edits:
// every language must have exactly the English keys, the same named placeholders in each text,
// and the plural forms its own plural rules ask for, so no screen falls back to English or shows
// a raw "{number}".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/staff/src/i18n');
type Entry = string | Record<string, string>;
const load = (lang: string): Record<string, Entry> => JSON.parse(readFileSync(path.join(DIR, `${lang}.json`), 'utf8'));
const languages = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5))
  .sort();
const en = load('en');

const placeholders = (e: Entry): string[] => {
  const texts = typeof e === 'string' ? [e] : Object.values(e);
  return [...new Set(texts.flatMap((s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)))].sort();
};

/** The plural categories whole numbers can take in a language (0 to 1000 covers every count the page shows). */
const categoriesFor = (lang: string): string[] => {
  const rules = new Intl.PluralRules(lang);
  return [...new Set(Array.from({ length: 1001 }, (_, n) => rules.select(n)))].sort();
};

test('the staff page speaks English, French, Spanish and German', () => {
  for (const lang of ['en', 'fr', 'es', 'de']) assert.ok(languages.includes(lang), `${lang}.json is missing`);
});

for (const lang of languages) {
  test(`${lang}.json has exactly the English keys, the same placeholders and its plural forms`, () => {
    const messages = load(lang);
    assert.deepEqual(
      Object.keys(messages).filter((k) => !(k in en)),
      [],
      'keys English does not have',
    );
    assert.deepEqual(
      Object.keys(en).filter((k) => !(k in messages)),
      [],
      'keys this language lacks',
    );
    const needed = categoriesFor(lang);
    for (const [key, english] of Object.entries(en)) {
      const entry = messages[key]!;
      assert.equal(typeof entry, typeof english, `${key}: a plural in one language is a plural in all`);
      assert.deepEqual(placeholders(entry), placeholders(english), `${key}: placeholders differ from English`);
      if (typeof entry === 'string') {
        assert.notEqual(entry.trim(), '', `${key} is empty`);
        continue;
      }
      assert.ok(JSON.stringify(placeholders(english)).includes('"count"'), `${key}: a plural needs {count}`);
      for (const category of needed)
        assert.ok(typeof entry[category] === 'string' && entry[category] !== '', `${key}: the "${category}" form is missing`);
      const extra = Object.keys(entry).filter((c) => !needed.includes(c) && c !== 'other');
      assert.deepEqual(extra, [], `${key}: forms ${lang} never uses`);
    }
  });
}

test('a missing plural form or placeholder is caught (the check itself works)', () => {
  assert.deepEqual(categoriesFor('en'), ['one', 'other']);
  assert.deepEqual(placeholders({ one: '{count} ticket', other: '{count} tickets at {time}' }), ['count', 'time']);
});
