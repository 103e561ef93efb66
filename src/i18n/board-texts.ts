// Texts of the display board and its spoken call-out, from src/i18n/messages/board/<lang>.json.
import en from './messages/board/en.json' with { type: 'json' };
import fr from './messages/board/fr.json' with { type: 'json' };
import es from './messages/board/es.json' with { type: 'json' };
import de from './messages/board/de.json' with { type: 'json' };
import it from './messages/board/it.json' with { type: 'json' };
import pt from './messages/board/pt.json' with { type: 'json' };
import nl from './messages/board/nl.json' with { type: 'json' };
import ar from './messages/board/ar.json' with { type: 'json' };
import { textDirection, type Language } from './language.ts';
import { checkedCatalogs, translator, type Message, type Translator } from './messages.ts';

export type BoardKey = keyof typeof en;

const CATALOGS = checkedCatalogs<Record<BoardKey, Message>>('board', { en, fr, es, de, it, pt, nl, ar });

export const BOARD_CATALOGS: Readonly<Record<Language, Record<BoardKey, Message>>> = CATALOGS;

const TRANSLATORS = new Map<Language, Translator<BoardKey>>();

export function boardTexts(lang: Language): Translator<BoardKey> {
  let tr = TRANSLATORS.get(lang);
  if (tr === undefined) {
    tr = translator(lang, CATALOGS[lang], textDirection(lang) === 'rtl');
    TRANSLATORS.set(lang, tr);
  }
  return tr;
}

/**
 * "A-42" → "Number A 42": the hyphen would be read out as "minus" by some voices. Spoken text
 * gets no direction marks (a voice could read them out).
 */
export function calloutText(lang: Language, displayNumber: string): string {
  return translator<BoardKey>(lang, CATALOGS[lang], false).t('callout', { number: displayNumber.replace(/-/g, ' ') });
}
