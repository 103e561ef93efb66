// "Your trial ends in 3 days": sent three days before a trial ends, Stripe's (a card is on file
// and is charged then) or sign-up's (no card yet: the shop must choose a plan to keep it), while
// the account is still trialing (decisions 0084, 0085); the button opens the Billing screen.
import en from '../../i18n/messages/mail/trial-ending/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/trial-ending/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/trial-ending/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/trial-ending/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const TRIAL_ENDING_MAIL = defineMail<{ plan: string; date: string; link: string; card: 'yes' | 'no' }, keyof typeof en>({
  name: 'trial-ending',
  texts: { en, fr, es, de },
  sendWithinMs: 3 * 86_400_000,
  compose: (t, v) => ({
    subject: t('subject'),
    intro: [t('intro'), t(v.card === 'yes' ? 'next' : 'next_no_card')],
    action: { label: t('action'), url: v.link },
    outro: [t('outro')],
  }),
});
