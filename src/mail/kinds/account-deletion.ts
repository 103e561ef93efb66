// "Your account will be deleted": to every owner when one deletes the account (decision 0083),
// with the day it will be erased and the sign-in page, where an owner exports or restores it.
import en from '../../i18n/messages/mail/account-deletion/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/account-deletion/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/account-deletion/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/account-deletion/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const ACCOUNT_DELETION_MAIL = defineMail<{ link: string; erase_date: string }, keyof typeof en>({
  name: 'account-deletion',
  texts: { en, fr, es, de },
  sendWithinMs: 30 * 86_400_000,
  compose: (t, v) => ({
    subject: t('subject'),
    intro: [t('intro'), t('when')],
    action: { label: t('action'), url: v.link },
    outro: [t('outro'), t('not_you')],
  }),
});
