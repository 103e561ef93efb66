// What an owner of an account being deleted sees after signing in (decision 0083): when it will be
// erased, the export, and the restore. The server refuses everything else to such a session.
import { useState } from 'preact/hooks';
import { call } from './api.ts';
import { useSession } from './session.tsx';
import { useNotify } from './ui/notify.tsx';
import { problemText } from './ui/field-errors.tsx';
import { dateTime } from './ui/format.ts';
import { ExportLink } from './admin/leave.tsx';
import { t } from './i18n/i18n.ts';

const ERASE_AFTER_MS = 30 * 24 * 3600_000;

export function AccountDeleted() {
  const { session, setSession, signOut } = useSession();
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const requested = Date.parse(session.account.deletion_requested_at ?? '');
  const erase = new Date(requested + ERASE_AFTER_MS).toISOString();

  const restore = async () => {
    setBusy(true);
    setError(null);
    try {
      await call('restoreAccount');
      setSession(await call('getSession'));
      notify(t('deleted.restored'), 'success');
    } catch (err) {
      setError(problemText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main" tabIndex={-1}>
      <section class="card" aria-labelledby="deleted-title">
        <h1 id="deleted-title">{t('deleted.heading')}</h1>
        <p>{t('deleted.lead', { account: session.account.name, date: dateTime(erase, session.branch.timezone) })}</p>
        <ExportLink />
        {error && (
          <p id="restore-error" class="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="button" class="primary" disabled={busy} onClick={restore} aria-describedby={error ? 'restore-error' : undefined}>
          {t('deleted.restore')}
        </button>
        <button type="button" class="quiet" onClick={signOut}>
          {t('account.signOut')}
        </button>
      </section>
    </main>
  );
}
