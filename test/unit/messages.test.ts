// The message files of the customer page and the board (src/i18n/messages/): every language has
// exactly the English keys, the same placeholders and its own plural forms; a broken file is
// caught; plurals and right-to-left text come out right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOMER_CATALOGS, customerTexts } from '../../src/i18n/customer-texts.ts';
import { BOARD_CATALOGS, calloutText } from '../../src/i18n/board-texts.ts';
import { catalogProblems, type Catalog } from '../../src/i18n/messages.ts';
import { SUPPORTED_LANGUAGES } from '../../src/domain/branch-settings.ts';
import type { Language } from '../../src/i18n/language.ts';

test('the customer page and the board speak English, French, Spanish, German, Italian, Portuguese, Dutch and Arabic', () => {
  assert.deepEqual([...SUPPORTED_LANGUAGES].sort(), ['ar', 'de', 'en', 'es', 'fr', 'it', 'nl', 'pt']);
  assert.deepEqual(Object.keys(CUSTOMER_CATALOGS).sort(), [...SUPPORTED_LANGUAGES].sort());
  assert.deepEqual(Object.keys(BOARD_CATALOGS).sort(), [...SUPPORTED_LANGUAGES].sort());
});

test("every language file has exactly the English keys, the same placeholders, and its language's plural forms", () => {
  for (const [surface, catalogs] of [
    ['customer', CUSTOMER_CATALOGS],
    ['board', BOARD_CATALOGS],
  ] as const) {
    for (const lang of SUPPORTED_LANGUAGES) {
      const c = catalogs[lang] as Catalog;
      assert.deepEqual(Object.keys(c).sort(), Object.keys(catalogs.en).sort(), `${surface}/${lang}.json keys`);
      assert.deepEqual(catalogProblems(lang, catalogs.en as Catalog, c), [], `${surface}/${lang}.json`);
    }
  }
});

test('a broken translation is named: missing and unknown keys, a lost or invented placeholder, missing plural forms', () => {
  const en = CUSTOMER_CATALOGS.en as Catalog;
  const ar = { ...(CUSTOMER_CATALOGS.ar as Catalog) };
  delete ar.offline;
  ar.extra = 'x';
  ar.title = 'الطلب';
  ar.rung = 'الطلب {number} جاهز {when}';
  ar['position.ahead'] = { one: 'طلب واحد', other: '{count} طلب' };
  assert.deepEqual(catalogProblems('ar' as Language, en, ar), [
    'offline: missing',
    'title: placeholders {} instead of {number}',
    'position.ahead: plural forms must be exactly zero, one, two, few, many, other (has one,other)',
    'rung: placeholders {number}, {when} instead of {number}',
    'extra: not in the English file',
  ]);
  assert.deepEqual(catalogProblems('de', en, { ...(CUSTOMER_CATALOGS.de as Catalog), 'action.snooze': 'Noch {count} Minuten' }), [
    'action.snooze: must be plural forms',
  ]);
});

test("plurals follow each language's rules (Intl.PluralRules)", () => {
  const ahead = (lang: Language, count: number) =>
    customerTexts(lang)
      .t('position.ahead', { count })
      .replace(/[\u2068\u2069]/g, '');
  assert.equal(ahead('en', 1), '1 order ahead of you');
  assert.equal(ahead('en', 2), '2 orders ahead of you');
  assert.equal(ahead('fr', 1), '1 commande avant la vôtre');
  assert.equal(ahead('de', 3), '3 Bestellungen vor Ihrer');
  assert.equal(ahead('ar', 1), 'طلب واحد قبل طلبك');
  assert.equal(ahead('ar', 2), 'طلبان قبل طلبك');
  assert.equal(ahead('ar', 3), '3 طلبات قبل طلبك');
  assert.equal(ahead('ar', 11), '11 طلبًا قبل طلبك');
  assert.equal(ahead('ar', 100), '100 طلب قبل طلبك');
  assert.equal(customerTexts('nl').t('action.snooze', { count: 1 }), 'Nog 1 minuut nodig');
  assert.equal(customerTexts('nl').t('action.snooze', { count: 5 }), 'Nog 5 minuten nodig');
});

test('in Arabic a number inside the text keeps its own direction; the spoken call-out carries no marks', () => {
  assert.equal(customerTexts('ar').t('title', { number: 'A-42' }), 'الطلب \u2068A-42\u2069');
  assert.equal(customerTexts('en').t('title', { number: 'A-42' }), 'Order A-42');
  assert.equal(calloutText('ar', 'A-42'), 'الرقم A 42');
  assert.equal(calloutText('it', 'B-7'), 'Numero B 7');
  assert.equal(calloutText('nl', 'A-1'), 'Nummer A 1');
});
