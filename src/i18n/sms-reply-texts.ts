// What readybell texts back to a customer's reply (decision 0026), in the branch's customer-page
// language, the language of the text they answered. Short: every answer is a paid message, and
// one GSM segment holds 160 characters (an Arabic one, 70). STOP and START get no answer from
// here: the provider confirms them itself, and a message to a number that just opted out is refused.
import { SUPPORTED_LANGUAGES } from '../domain/branch-settings.ts';

type Language = (typeof SUPPORTED_LANGUAGES)[number];
export type SmsReplyTexts = {
  /** HELP, and anything not understood: who is texting, and what to reply. */
  help: (shop: string, number: string) => string;
  acknowledged: (shop: string, number: string) => string;
  snoozed: (shop: string, number: string, minutes: number) => string;
};

const TEXTS: Record<Language, SmsReplyTexts> = {
  en: {
    help: (s, n) => `${s}: alerts for order ${n}. Reply 1 when you are on your way, 5 for 5 more minutes, STOP to end texts.`,
    acknowledged: (s, n) => `${s}: thanks, see you at the counter (${n}).`,
    snoozed: (s, n, m) => `${s}: no rush. We will remind you about ${n} in ${m} minutes.`,
  },
  fr: {
    help: (s, n) =>
      `${s} : alertes pour la commande ${n}. Répondez 1 si vous arrivez, 5 pour 5 minutes de plus, STOP pour ne plus recevoir de SMS.`,
    acknowledged: (s, n) => `${s} : merci, à tout de suite au comptoir (${n}).`,
    snoozed: (s, n, m) => `${s} : pas de souci. Nous vous rappellerons ${n} dans ${m} minutes.`,
  },
  es: {
    help: (s, n) => `${s}: avisos del pedido ${n}. Responde 1 si vienes, 5 para 5 minutos más, STOP para no recibir más SMS.`,
    acknowledged: (s, n) => `${s}: gracias, te esperamos en el mostrador (${n}).`,
    snoozed: (s, n, m) => `${s}: sin prisa. Te avisaremos de ${n} en ${m} minutos.`,
  },
  de: {
    help: (s, n) => `${s}: Hinweise zu Bestellung ${n}. Antworte 1, wenn du kommst, 5 für 5 Minuten mehr, STOP für keine SMS mehr.`,
    acknowledged: (s, n) => `${s}: danke, bis gleich an der Theke (${n}).`,
    snoozed: (s, n, m) => `${s}: kein Stress. Wir erinnern dich in ${m} Minuten an ${n}.`,
  },
  it: {
    help: (s, n) => `${s}: avvisi per l'ordine ${n}. Rispondi 1 se stai arrivando, 5 per altri 5 minuti, STOP per non ricevere più SMS.`,
    acknowledged: (s, n) => `${s}: grazie, ti aspettiamo al banco (${n}).`,
    snoozed: (s, n, m) => `${s}: nessuna fretta. Ti ricorderemo ${n} tra ${m} minuti.`,
  },
  pt: {
    help: (s, n) => `${s}: avisos do pedido ${n}. Responda 1 se estiver a caminho, 5 para mais 5 minutos, STOP para deixar de receber SMS.`,
    acknowledged: (s, n) => `${s}: obrigado, até já no balcão (${n}).`,
    snoozed: (s, n, m) => `${s}: sem pressa. Voltamos a avisar sobre ${n} daqui a ${m} minutos.`,
  },
  nl: {
    help: (s, n) =>
      `${s}: meldingen voor bestelling ${n}. Antwoord 1 als u eraan komt, 5 voor 5 minuten extra, STOP om geen sms meer te krijgen.`,
    acknowledged: (s, n) => `${s}: bedankt, tot zo bij de balie (${n}).`,
    snoozed: (s, n, m) => `${s}: geen haast. We herinneren u over ${m} minuten aan ${n}.`,
  },
  ar: {
    help: (s, n) => `${s}: تنبيهات الطلب ${n}. أرسل 1 إن كنت في الطريق، 5 لخمس دقائق إضافية، STOP لإيقاف الرسائل.`,
    acknowledged: (s, n) => `${s}: شكرًا، نراك عند نقطة الاستلام (${n}).`,
    snoozed: (s, n, m) => `${s}: لا داعي للعجلة. سنذكّرك بالطلب ${n} بعد ${m} دقائق.`,
  },
};

/** A reply from a number with no open ticket texted: nobody to name, so in English. */
export const NO_OPEN_ORDER_TEXT = 'No order is waiting for this number. Reply STOP to end texts.';

export function smsReplyTexts(language: string): SmsReplyTexts {
  const base = language.toLowerCase().split('-')[0] as Language;
  return TEXTS[(SUPPORTED_LANGUAGES as readonly string[]).includes(base) ? base : 'en'];
}
