// The verification link's screen: spends the link at once, then signs in and goes to the board,
// where the first-run checklist shows the shop's first test key once.
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Session } from '../types.ts';
import { problemText } from '../ui/field-errors.tsx';
import { t } from '../i18n/i18n.ts';
import { startFirstRun } from './first-run-state.ts';

export function VerifyEmail({ token, onSignedIn }: { token: string; onSignedIn: (s: Session) => void }) {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    call('verifyEmail', { body: { token } }).then(
      (r) => {
        if (!live) return;
        startFirstRun(r.session.account.id, r.test_key);
        // Replaces the link in the history (Back does not spend it again) and tells the page.
        location.replace('#/board');
        onSignedIn(r.session);
      },
      (err) => live && setError(problemText(err)),
    );
    return () => {
      live = false;
    };
  }, [token]);

  return (
    <main class="sign-in">
      <section class="card" aria-labelledby="verify-title" aria-busy={error === null ? 'true' : undefined}>
        <h1 id="verify-title">{t('verify.title')}</h1>
        {error === null ? (
          <p role="status">{t('verify.working')}</p>
        ) : (
          <>
            <p class="field-error" role="alert">
              {error}
            </p>
            <p>{t('verify.failedHelp')}</p>
            <a href="#/">{t('door.backToSignIn')}</a>
          </>
        )}
      </section>
    </main>
  );
}
