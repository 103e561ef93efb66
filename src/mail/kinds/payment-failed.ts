// "A payment failed": sent once per failure when Stripe reports the subscription past due
// (decision 0085); it says until when the plan holds and opens the Billing screen.
import en from '../../i18n/messages/mail/payment-failed/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/payment-failed/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/payment-failed/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/payment-failed/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const PAYMENT_FAILED_MAIL = defineMail<{ plan: string; date: string; link: string }, keyof typeof en>({
  name: 'payment-failed',
  texts: { en, fr, es, de },
  compose: (t, v) => ({
    subject: t('subject'),
    intro: [t('intro'), t('next')],
    action: { label: t('action'), url: v.link },
    outro: [t('outro')],
  }),
});
