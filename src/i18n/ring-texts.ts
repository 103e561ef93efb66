// What a push notification and an SMS say, in the branch's customer-page language. Short on
// purpose: an SMS over 160 GSM characters costs two messages, and a lock screen shows one line.
import { SUPPORTED_LANGUAGES } from '../domain/branch-settings.ts';

type Language = (typeof SUPPORTED_LANGUAGES)[number];
type Texts = { title: (n: string) => string; body: (branch: string) => string; sms: (n: string, branch: string, url: string) => string };

const TEXTS: Record<Language, Texts> = {
  en: {
    title: (n) => `${n} is ready`,
    body: (b) => `Your order is ready at ${b}. Please come to the counter.`,
    sms: (n, b, url) => `${b}: your order ${n} is ready. Please come to the counter. ${url}`,
  },
  fr: {
    title: (n) => `${n} est prête`,
    body: (b) => `Votre commande est prête chez ${b}. Merci de venir au comptoir.`,
    sms: (n, b, url) => `${b} : votre commande ${n} est prête. Merci de venir au comptoir. ${url}`,
  },
  es: {
    title: (n) => `${n} está listo`,
    body: (b) => `Tu pedido está listo en ${b}. Pasa por el mostrador.`,
    sms: (n, b, url) => `${b}: tu pedido ${n} está listo. Pasa por el mostrador. ${url}`,
  },
  de: {
    title: (n) => `${n} ist fertig`,
    body: (b) => `Deine Bestellung bei ${b} ist fertig. Bitte komm zur Theke.`,
    sms: (n, b, url) => `${b}: Deine Bestellung ${n} ist fertig. Bitte komm zur Theke. ${url}`,
  },
  it: {
    title: (n) => `${n} è pronto`,
    body: (b) => `Il tuo ordine è pronto da ${b}. Vieni al banco, per favore.`,
    sms: (n, b, url) => `${b}: il tuo ordine ${n} è pronto. Vieni al banco, per favore. ${url}`,
  },
  pt: {
    title: (n) => `${n} está pronto`,
    body: (b) => `O seu pedido está pronto em ${b}. Dirija-se ao balcão, por favor.`,
    sms: (n, b, url) => `${b}: o seu pedido ${n} está pronto. Dirija-se ao balcão, por favor. ${url}`,
  },
  nl: {
    title: (n) => `${n} is klaar`,
    body: (b) => `Uw bestelling bij ${b} is klaar. Kom naar de balie, alstublieft.`,
    sms: (n, b, url) => `${b}: uw bestelling ${n} is klaar. Kom naar de balie, alstublieft. ${url}`,
  },
  // Arabic needs UCS-2, whose SMS segments hold 70 characters: this one costs two or three.
  ar: {
    title: (n) => `الطلب ${n} جاهز`,
    body: (b) => `طلبك جاهز في ${b}. يُرجى التوجّه إلى نقطة الاستلام.`,
    sms: (n, b, url) => `${b}: طلبك ${n} جاهز. يُرجى التوجّه إلى نقطة الاستلام. ${url}`,
  },
};

export function ringTexts(language: string): Texts {
  const base = language.toLowerCase().split('-')[0] as Language;
  return TEXTS[(SUPPORTED_LANGUAGES as readonly string[]).includes(base) ? base : 'en'];
}

/** Branch names are chosen by staff; keep an SMS to one segment's worth of name. */
export function shortBranchName(name: string): string {
  const clean = name.replace(/[\r\n\t]+/g, ' ').trim();
  return clean.length > 30 ? `${clean.slice(0, 29)}…` : clean;
}
