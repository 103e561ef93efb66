// "Your email was changed": to the old address once the new one is confirmed (decision 0082), so
// that a change its owner did not make is noticed. No link: nothing to click in a mail that may
// be read by the person it warns about.
import en from '../../i18n/messages/mail/email-changed/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/email-changed/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/email-changed/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/email-changed/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const EMAIL_CHANGED_MAIL = defineMail<{ new_email: string }, keyof typeof en>({
  name: 'email-changed',
  texts: { en, fr, es, de },
  compose: (t) => ({ subject: t('subject'), intro: [t('intro')], outro: [t('not_you')] }),
});
