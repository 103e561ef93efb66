// Where the emailed link went: the inbox, or, on a readybell without a mail server, its log.
import { t } from '../i18n/i18n.ts';

export function SentNote({ delivery }: { delivery: 'smtp' | 'log' }) {
  if (delivery === 'smtp') return <p class="hint">{t('door.checkSpam')}</p>;
  return (
    <p class="notice notice-warning" role="note">
      {t('door.loggedLink')}
    </p>
  );
}
