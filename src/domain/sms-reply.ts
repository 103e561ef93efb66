// What a customer's text back means (decision 0026). A reply is read as a whole: after
// normalising case, accents, punctuation and digits it must be one of the phrases below, so that
// "not on my way" or a long message is never taken for "on my way".
//
// The words come in every language of the customer page (src/i18n/messages): the page's language
// follows each customer's browser, so a branch's customers text in any of them, and no phrase
// means two things in two languages (a unit test holds that).
//
// STOP, START and HELP are the carriers' keywords and Twilio's defaults for its opt-out handling
// (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT, REVOKE; START, YES, UNSTOP; HELP, INFO):
// the provider blocks or unblocks the number on the same words, so readybell must agree with it.
// That is why YES re-subscribes rather than meaning "on my way", and CANCEL opts out rather than
// cancelling the order.

export type SmsVerb = 'acknowledge' | 'snooze' | 'stop' | 'start' | 'help' | 'unrecognised';

/** What a reply does to the ticket and the number; `unrecognised` is answered with the help text. */
export const SMS_VERBS: readonly SmsVerb[] = ['acknowledge', 'snooze', 'stop', 'start', 'help', 'unrecognised'];

/** How long "5" or "later" snoozes, in minutes. */
export const SMS_SNOOZE_MINUTES = 5;

type Phrases = Record<Exclude<SmsVerb, 'unrecognised'>, readonly string[]>;

const PHRASES: Record<string, Partial<Phrases>> = {
  // The carriers' and the provider's keywords, whatever the customer's language.
  keywords: {
    stop: ['stop', 'stopall', 'stop all', 'unsubscribe', 'cancel', 'end', 'quit', 'optout', 'opt out', 'revoke'],
    start: ['start', 'yes', 'unstop'],
    help: ['help', 'info'],
  },
  en: {
    acknowledge: [
      '1',
      'ok',
      'okay',
      'on my way',
      'omw',
      'on the way',
      'coming',
      'i am coming',
      "i'm coming",
      "i'm on my way",
      'i am on my way',
    ],
    snooze: ['5', '5 min', '5 mins', '5 minutes', 'later', 'need 5 more minutes', '5 more minutes'],
  },
  fr: {
    acknowledge: ['j’arrive', 'en route', 'je suis en route', 'je viens', 'd’accord'],
    snooze: ['plus tard', 'encore 5 minutes', '5 minutes'],
    stop: ['arrêt', 'arrêter'],
    help: ['aide'],
  },
  es: {
    acknowledge: ['voy para allá', 'voy', 'ya voy', 'en camino', 'voy en camino', 'de acuerdo', 'vale'],
    snooze: ['más tarde', 'luego', 'necesito 5 minutos más', '5 minutos'],
    stop: ['parar', 'baja'],
    help: ['ayuda'],
  },
  de: {
    acknowledge: ['bin unterwegs', 'unterwegs', 'ich komme', 'komme', 'bin gleich da', 'alles klar'],
    snooze: ['später', 'noch 5 minuten', '5 minuten'],
    stop: ['stopp'],
    help: ['hilfe'],
  },
  it: {
    acknowledge: ['sto arrivando', 'arrivo', 'in arrivo', 'va bene'],
    snooze: ['più tardi', 'dopo', 'mi servono altri 5 minuti', 'ancora 5 minuti', '5 minuti'],
    stop: ['basta'],
    help: ['aiuto'],
  },
  pt: {
    acknowledge: ['estou a caminho', 'a caminho', 'já vou', 'estou indo', 'está bem'],
    snooze: ['mais tarde', 'preciso de mais 5 minutos', 'mais 5 minutos', '5 minutos'],
    stop: ['sair'],
    help: ['ajuda'],
  },
  nl: {
    acknowledge: ['ik kom eraan', 'kom eraan', 'onderweg', 'ik ben onderweg', 'oké'],
    snooze: ['later', 'straks', 'nog 5 minuten nodig', 'nog 5 minuten', '5 minuten'],
    help: ['hulp'],
  },
  ar: {
    acknowledge: ['أنا في الطريق', 'في الطريق', 'قادم', 'جاي', 'حاضر', 'تمام'],
    snooze: ['لاحقًا', 'بعد قليل', 'أحتاج 5 دقائق إضافية', '5 دقائق'],
    stop: ['توقف', 'إيقاف'],
    help: ['مساعدة'],
  },
};

/** Arabic-Indic and Persian digits, which phones in those locales type by default. */
const DIGITS: Record<string, string> = Object.fromEntries([
  ...[...'٠١٢٣٤٥٦٧٨٩'].map((d, i) => [d, String(i)]),
  ...[...'۰۱۲۳۴۵۶۷۸۹'].map((d, i) => [d, String(i)]),
]);

/**
 * Case, accents and marks (é, ä, Arabic vowel signs), apostrophes and other punctuation, emoji,
 * digits in other scripts and runs of spaces do not change what a reply means.
 */
export function normaliseReply(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => DIGITS[d]!)
    .replace(/['’ʼ`]/g, '')
    .replace(/[\p{P}\p{S}\p{C}\s]+/gu, ' ')
    .trim();
}

function buildIndex(): Map<string, Exclude<SmsVerb, 'unrecognised'>> {
  const index = new Map<string, Exclude<SmsVerb, 'unrecognised'>>();
  for (const [language, phrases] of Object.entries(PHRASES)) {
    for (const [verb, list] of Object.entries(phrases) as Array<[Exclude<SmsVerb, 'unrecognised'>, readonly string[]]>) {
      for (const phrase of list) {
        const key = normaliseReply(phrase);
        const already = index.get(key);
        if (already !== undefined && already !== verb)
          throw new Error(`SMS reply "${phrase}" (${language}) means both ${already} and ${verb}`);
        index.set(key, verb);
      }
    }
  }
  return index;
}

const INDEX = buildIndex();

/** Every phrase understood, by verb (for the docs and the tests). */
export function smsReplyPhrases(): ReadonlyMap<string, Exclude<SmsVerb, 'unrecognised'>> {
  return INDEX;
}

/** Replies longer than this are messages to the shop, not commands. */
const MAX_COMMAND_LENGTH = 60;

export function readSmsReply(text: string): SmsVerb {
  if (text.length > MAX_COMMAND_LENGTH * 4) return 'unrecognised';
  const key = normaliseReply(text);
  if (key.length === 0 || key.length > MAX_COMMAND_LENGTH) return 'unrecognised';
  return INDEX.get(key) ?? 'unrecognised';
}
