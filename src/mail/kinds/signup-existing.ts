// "Your address already has an account": what a sign-up with a known email sends instead of an
// error, so the sign-up's answer is the same whether or not the email is known (decision 0081).
// Its link is the sign-in page: it carries no token.
import en from '../../i18n/messages/mail/signup-existing/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/signup-existing/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/signup-existing/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/signup-existing/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const SIGNUP_EXISTING_MAIL = defineMail<{ link: string }, keyof typeof en>({
  name: 'signup-existing',
  texts: { en, fr, es, de },
  sendWithinMs: 86_400_000,
  compose: (t, v) => ({
    subject: t('subject'),
    intro: [t('intro')],
    action: { label: t('action'), url: v.link },
    outro: [t('forgot'), t('not_you')],
  }),
});
