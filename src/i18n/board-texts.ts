// Texts of the display board and its spoken call-out.
import type { Language } from './language.ts';

export type BoardTexts = {
  preparing: string;
  ready: string;
  missed: string;
  enableSound: string;
  soundOn: string;
  offline: string;
  removedTitle: string;
  removedBody: string;
  unknownTitle: string;
  unknownBody: string;
  /** spoken when a number is called; {n} is the number with its queue, e.g. "A 42" */
  callout: string;
};

export const BOARD_TEXTS: Record<Language, BoardTexts> = {
  en: {
    preparing: 'Preparing', ready: 'Ready', missed: 'Please ask at the counter', enableSound: 'Turn on sound and voice', soundOn: 'Sound on',
    offline: 'Reconnecting…', removedTitle: 'This board was removed', removedBody: 'Ask the shop for a new board link.',
    unknownTitle: 'Unknown board link', unknownBody: 'Check the link, or ask the shop for a new one.', callout: 'Number {n}',
  },
  fr: {
    preparing: 'En préparation', ready: 'Prêt', missed: 'Merci de vous adresser au comptoir', enableSound: 'Activer le son et la voix', soundOn: 'Son activé',
    offline: 'Reconnexion…', removedTitle: 'Cet écran a été supprimé', removedBody: 'Demandez un nouveau lien d’écran à la boutique.',
    unknownTitle: 'Lien d’écran inconnu', unknownBody: 'Vérifiez le lien ou demandez-en un nouveau à la boutique.', callout: 'Numéro {n}',
  },
  es: {
    preparing: 'En preparación', ready: 'Listo', missed: 'Por favor, pregunte en el mostrador', enableSound: 'Activar sonido y voz', soundOn: 'Sonido activado',
    offline: 'Reconectando…', removedTitle: 'Esta pantalla fue eliminada', removedBody: 'Pida a la tienda un nuevo enlace de pantalla.',
    unknownTitle: 'Enlace de pantalla desconocido', unknownBody: 'Compruebe el enlace o pida uno nuevo a la tienda.', callout: 'Número {n}',
  },
  de: {
    preparing: 'In Zubereitung', ready: 'Abholbereit', missed: 'Bitte an der Theke melden', enableSound: 'Ton und Sprache einschalten', soundOn: 'Ton an',
    offline: 'Verbindung wird wiederhergestellt…', removedTitle: 'Diese Anzeige wurde entfernt', removedBody: 'Bitten Sie das Geschäft um einen neuen Anzeige-Link.',
    unknownTitle: 'Unbekannter Anzeige-Link', unknownBody: 'Prüfen Sie den Link oder bitten Sie das Geschäft um einen neuen.', callout: 'Nummer {n}',
  },
};

/** "A-42" → "Number A 42": the hyphen would be read out as "minus" by some voices. */
export function calloutText(lang: Language, displayNumber: string): string {
  return BOARD_TEXTS[lang].callout.replace('{n}', displayNumber.replace(/-/g, ' '));
}
