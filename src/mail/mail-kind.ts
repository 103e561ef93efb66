// What one kind of email says (decision 0080). A kind is one file of src/mail/kinds/ and its texts,
// src/i18n/messages/mail/<kind>/<lang>.json: `defineMail` checks those four files against the
// English one when the kind is loaded and gives the kind a `compose` that fills them in. Nothing
// lists the kinds: a verb enqueues a mail of a kind it imports (queue-mail.ts), and the mail is
// rendered then, in the transaction that causes it, so the sending job needs no kind's code.
import type { Catalog, Message, Values } from '../i18n/messages.ts';
import { checkedCatalogs, translator } from '../i18n/messages.ts';
import { pickLanguage, type Language } from '../i18n/language.ts';

/** The staff page's languages: every mail is written in each of them. */
export const MAIL_LANGUAGES = ['en', 'fr', 'es', 'de'] as const satisfies readonly Language[];
export type MailLanguage = (typeof MAIL_LANGUAGES)[number];

export const isMailLanguage = (v: unknown): v is MailLanguage => (MAIL_LANGUAGES as readonly unknown[]).includes(v);

/** The language a person asked in (the screen sends its own), else their browser's, else English. */
export function mailLanguage(asked: string | undefined, acceptLanguage: string | undefined): MailLanguage {
  if (isMailLanguage(asked)) return asked;
  const picked = pickLanguage(acceptLanguage, 'en');
  return isMailLanguage(picked) ? picked : 'en';
}

/** A mail's parts, in its language, before the layout (layout.ts) makes its plain text and HTML. */
export type MailContent = {
  subject: string;
  /** The paragraphs before the button. */
  intro: string[];
  /** The one thing to do, as a button in HTML and the address on its own line in plain text. */
  action?: { label: string; url: string };
  /** The paragraphs after it (how long the link works, what to do if it was not you). */
  outro?: string[];
};

/** What every mail's texts may use besides its own values: the shop's (account's) name. */
export type ShopValues = { shop: string };

export type MailKind<P extends Values> = {
  readonly name: string;
  /** How long sending still makes sense (a reset link works an hour): after that the job gives up. */
  readonly sendWithinMs: number;
  compose(lang: MailLanguage, values: P & ShopValues): MailContent;
};

export type MailTexts<K extends string> = Record<MailLanguage, Record<K, Message>>;

const DAY_MS = 86_400_000;

/**
 * A kind: `texts` are its four message files (en first, the others checked against it), `compose`
 * picks its texts with `t`, which fills `{shop}` and the kind's own values.
 */
export function defineMail<P extends Values, K extends string>(spec: {
  name: string;
  texts: MailTexts<K>;
  sendWithinMs?: number;
  compose: (t: (key: K) => string, values: P & ShopValues) => MailContent;
}): MailKind<P> {
  if (!/^[a-z][a-z0-9-]*$/.test(spec.name)) throw new Error(`mail kind name "${spec.name}" must be lower-case words with hyphens`);
  const catalogs = checkedCatalogs<Record<K, Message>>(`mail/${spec.name}`, spec.texts as unknown as Record<Language, Catalog>);
  return {
    name: spec.name,
    sendWithinMs: spec.sendWithinMs ?? 3 * DAY_MS,
    compose(lang, values) {
      // No direction marks: none of the mail languages is right-to-left.
      const tr = translator<K>(lang, catalogs[lang], false);
      return spec.compose((key) => tr.t(key, values), values);
    },
  };
}
