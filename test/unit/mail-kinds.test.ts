// Every mail kind (each file of src/mail/kinds, found by listing the folder, so a new kind is
// covered without editing this test) composes in the four staff languages, with the shop's name in
// its plain text and its HTML, and its link, if any, in both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { MAIL_LANGUAGES, type MailKind } from '../../src/mail/mail-kind.ts';
import { renderMail } from '../../src/mail/layout.ts';

const DIR = path.resolve(import.meta.dirname, '../../src/mail/kinds');

const kinds: MailKind<Record<string, string>>[] = [];
for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts'))) {
  const mod = (await import(path.join(DIR, file))) as Record<string, unknown>;
  for (const v of Object.values(mod))
    if (typeof v === 'object' && v !== null && 'compose' in v && 'name' in v) kinds.push(v as MailKind<Record<string, string>>);
}

test('the kinds are found', () => {
  assert.ok(kinds.some((k) => k.name === 'verify-email'));
  assert.ok(kinds.some((k) => k.name === 'reset-password'));
  assert.equal(new Set(kinds.map((k) => k.name)).size, kinds.length, 'each kind has its own name');
});

test('every kind composes in every staff language, with the shop name and its link in text and HTML', () => {
  // Every value a kind might use: a kind's own values are strings (a link, a date, a name).
  const values = new Proxy({} as Record<string, string>, {
    get: (_t, k) => (k === 'link' ? 'https://pickup.example/x?y=1&z=2' : `«${String(k)}»`),
  });
  for (const kind of kinds) {
    const subjects = new Set<string>();
    for (const lang of MAIL_LANGUAGES) {
      const content = kind.compose(lang, Object.assign(Object.create(values) as Record<string, string>, { shop: 'Shop Ünïcode' }));
      const mail = renderMail(lang, 'Shop Ünïcode', content);
      assert.ok(mail.subject.length > 0 && mail.subject.length < 120, `${kind.name}/${lang} subject`);
      assert.doesNotMatch(`${mail.subject}${mail.text}`, /\{\w+\}/, `${kind.name}/${lang}: no placeholder left unfilled`);
      assert.match(mail.text, /Shop Ünïcode/);
      assert.match(mail.html, /Shop Ünïcode/);
      assert.match(mail.html, new RegExp(`<html lang="${lang}">`));
      if (content.action !== undefined) {
        assert.ok(mail.text.includes(content.action.url), `${kind.name}/${lang}: the link in the text`);
        assert.ok(mail.html.includes('href="https://pickup.example/x?y=1&amp;z=2"'), `${kind.name}/${lang}: the link in the HTML, escaped`);
      }
      subjects.add(mail.subject);
    }
    assert.equal(subjects.size, MAIL_LANGUAGES.length, `${kind.name}: each language has its own subject`);
  }
});
