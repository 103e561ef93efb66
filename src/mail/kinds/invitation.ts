// "You are invited": its link (one use, 7 days) lets the invitee choose their own password
// (decision 0082). Resending mails a new link; the old one stops.
import en from '../../i18n/messages/mail/invitation/en.json' with { type: 'json' };
import fr from '../../i18n/messages/mail/invitation/fr.json' with { type: 'json' };
import es from '../../i18n/messages/mail/invitation/es.json' with { type: 'json' };
import de from '../../i18n/messages/mail/invitation/de.json' with { type: 'json' };
import { defineMail } from '../mail-kind.ts';

export const INVITATION_MAIL = defineMail<{ link: string; role: 'owner' | 'manager' | 'staff' }, keyof typeof en>({
  name: 'invitation',
  texts: { en, fr, es, de },
  sendWithinMs: 7 * 86_400_000,
  compose: (t, v) => ({
    subject: t('subject'),
    intro: [t('intro'), t(v.role === 'owner' ? 'as_owner' : v.role === 'manager' ? 'as_manager' : 'as_staff')],
    action: { label: t('action'), url: v.link },
    outro: [t('expiry'), t('not_you')],
  }),
});
