// "Confirm your new email address": to the new address, whose link (one use, 24 hours) makes it
// the user's sign-in email (decision 0082).
import en from '../../i18n/messages/mail/email-change-confirm/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/email-change-confirm/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/email-change-confirm/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/email-change-confirm/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const EMAIL_CHANGE_CONFIRM_MAIL = defineMail<{ link: string }, keyof typeof en>({
  name: 'email-change-confirm',
  texts: { en, fr, es, de },
  sendWithinMs: 86_400_000,
  compose: (t, v) => ({
    subject: t('subject'),
    intro: [t('intro')],
    action: { label: t('action'), url: v.link },
    outro: [t('expiry'), t('not_you')],
  }),
});
