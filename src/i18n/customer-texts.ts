// Texts of the customer page, from src/i18n/messages/customer/<lang>.json. The server renders
// them (in the first HTML and in every live snapshot), so the page's script carries no dictionary
// and stays tiny.
import en from './messages/customer/en.json' with { type: 'json' };
import fr from './messages/customer/fr.json' with { type: 'json' };
import es from './messages/customer/es.json' with { type: 'json' };
import de from './messages/customer/de.json' with { type: 'json' };
import it from './messages/customer/it.json' with { type: 'json' };
import pt from './messages/customer/pt.json' with { type: 'json' };
import nl from './messages/customer/nl.json' with { type: 'json' };
import ar from './messages/customer/ar.json' with { type: 'json' };
import { textDirection, type Language } from './language.ts';
import { checkedCatalogs, translator, type Message, type Translator } from './messages.ts';

export type CustomerKey = keyof typeof en;

const CATALOGS = checkedCatalogs<Record<CustomerKey, Message>>('customer', { en, fr, es, de, it, pt, nl, ar });

export const CUSTOMER_CATALOGS: Readonly<Record<Language, Record<CustomerKey, Message>>> = CATALOGS;

const TRANSLATORS = new Map<Language, Translator<CustomerKey>>();

export function customerTexts(lang: Language): Translator<CustomerKey> {
  let tr = TRANSLATORS.get(lang);
  if (tr === undefined) {
    tr = translator(lang, CATALOGS[lang], textDirection(lang) === 'rtl');
    TRANSLATORS.set(lang, tr);
  }
  return tr;
}
