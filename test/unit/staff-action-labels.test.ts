// Two different actions never share a label in one language (issue 36 item 10): French used
// "Annuler" for both cancelling a ticket and undoing that cancel, so the card being cancelled
// offered "[Annuler]" to undo it. The actions are the staff page's buttons that act on a ticket or
// dismiss a dialog, listed here by what they do; keys naming the same action (a card's button and
// its keyboard shortcut) may share a text, keys of different actions may not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/staff/src/i18n');

/**
 * What each action is called, by the keys of its labels. A screen's buttons shown together, or one
 * after the other on one ticket (Cancel, then its Undo), are in one group; a new action button
 * goes into the group of the screen it is on.
 */
const GROUPS: Record<string, Record<string, string[]>> = {
  'a ticket on the board': {
    ready: ['card.ready', 'shortcut.ready'],
    ringAgain: ['card.ring'],
    collect: ['card.collect', 'shortcut.collect'],
    cancel: ['card.cancel', 'shortcut.cancel'],
    undo: ['board.undo'],
    bringBack: ['card.reopen'],
    slip: ['card.slip', 'shortcut.slip'],
  },
  'a dialog': { dismiss: ['dialog.cancel'], close: ['dialog.close'] },
};

const languages = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5))
  .sort();

test('in every language, the actions of one screen have different labels', () => {
  const en = JSON.parse(readFileSync(path.join(DIR, 'en.json'), 'utf8')) as Record<string, unknown>;
  for (const lang of languages) {
    const texts = JSON.parse(readFileSync(path.join(DIR, `${lang}.json`), 'utf8')) as Record<string, unknown>;
    for (const [screen, actions] of Object.entries(GROUPS)) {
      const named = new Map<string, string>();
      for (const [action, keys] of Object.entries(actions)) {
        for (const key of keys) {
          assert.ok(key in en, `${key} is a key of the page`);
          const text = texts[key];
          assert.equal(typeof text, 'string', `${lang}: ${key} is a label`);
          const other = named.get((text as string).toLocaleLowerCase(lang));
          assert.ok(other === undefined || other === action, `${lang}, ${screen}: "${text}" names both ${other} and ${action}`);
          named.set((text as string).toLocaleLowerCase(lang), action);
        }
      }
    }
  }
});
