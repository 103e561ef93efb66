// "Confirm your email address": sent at sign-up; its link (one use, 7 days) verifies the owner's
// address, which live API keys wait for (decision 0081).
import en from '../../i18n/messages/mail/verify-email/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/verify-email/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/verify-email/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/verify-email/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const VERIFY_EMAIL_MAIL = defineMail<{ link: string }, keyof typeof en>({
  name: 'verify-email',
  texts: { en, fr, es, de },
  sendWithinMs: 7 * 86_400_000,
  compose: (t, v) => ({
    subject: t('subject'),
    intro: [t('intro')],
    action: { label: t('action'), url: v.link },
    outro: [t('expiry'), t('not_you')],
  }),
});
