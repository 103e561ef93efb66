// "Reset your password": its link (one use, within the hour) sets a new password and ends every
// session of the user (decision 0081). Not worth sending once the link has expired.
import en from '../../i18n/messages/mail/reset-password/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/reset-password/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/reset-password/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/reset-password/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const RESET_PASSWORD_MAIL = defineMail<{ link: string }, keyof typeof en>({
  name: 'reset-password',
  texts: { en, fr, es, de },
  sendWithinMs: 3_600_000,
  compose: (t, v) => ({
    subject: t('subject'),
    intro: [t('intro')],
    action: { label: t('action'), url: v.link },
    outro: [t('expiry'), t('not_you')],
  }),
});
