// The screens an emailed link opens (decision 0082), before or beside any session: accepting an
// invitation (choose a password, then signed in with it) and confirming a new email. The token is
// in the address's fragment, which no server sees; once used, the address is put back to /staff/.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from './api.ts';
import type { Session } from './types.ts';
import { problemText } from './ui/field-errors.tsx';
import { t } from './i18n/i18n.ts';

export type LinkScreen = 'invitation' | 'confirm-email';

/** The link screen this address opens, if any. */
export function linkScreen(): LinkScreen | null {
  const m = /^\/staff\/(invitation|confirm-email)\/?$/.exec(location.pathname);
  return (m?.[1] as LinkScreen | undefined) ?? null;
}

const token = (): string => location.hash.replace(/^#/, '');
const leave = (): void => history.replaceState(null, '', '/staff/');

export function LinkScreens({ screen, onSignedIn, onDone }: { screen: LinkScreen; onSignedIn: (s: Session) => void; onDone: () => void }) {
  return screen === 'invitation' ? <AcceptInvitation onSignedIn={onSignedIn} /> : <ConfirmEmail onDone={onDone} />;
}

function AcceptInvitation({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(token() === '' ? t('link.incomplete') : null);
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const accepted = await call('acceptInvitation', { body: { token: token(), password } });
      const s = await call('createSession', { body: { email: accepted.email, password } });
      localStorage.setItem('readybell:email', accepted.email);
      leave();
      onSignedIn(s);
    } catch (err) {
      setError(problemText(err));
      ref.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <form onSubmit={submit} aria-labelledby="accept-title" class="card">
        <h1 id="accept-title">
          <span class="brand">readybell</span> {t('accept.heading')}
        </h1>
        <p>{t('accept.lead')}</p>
        <label for="accept-password">
          {t('accept.password')} <small>{t('accept.passwordNote')}</small>
        </label>
        <input
          id="accept-password"
          ref={ref}
          type="password"
          autocomplete="new-password"
          required
          minLength={10}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          aria-describedby={error ? 'accept-error' : undefined}
          aria-invalid={error ? 'true' : undefined}
        />
        {error && (
          <p id="accept-error" class="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('accept.busy') : t('accept.submit')}
        </button>
      </form>
    </main>
  );
}

function ConfirmEmail({ onDone }: { onDone: () => void }) {
  const [state, setState] = useState<{ done: string } | { error: string } | null>(token() === '' ? { error: t('link.incomplete') } : null);
  useEffect(() => {
    if (state !== null) return;
    call('confirmEmailChange', { body: { token: token() } }).then(
      (change) => setState({ done: change.email }),
      (err: unknown) => setState({ error: problemText(err) }),
    );
  }, []);
  const finish = () => {
    leave();
    onDone();
  };
  return (
    <main class="sign-in">
      <section class="card" aria-labelledby="confirm-title">
        <h1 id="confirm-title">
          <span class="brand">readybell</span> {t('confirmEmail.heading')}
        </h1>
        {state === null ? (
          <p role="status">{t('confirmEmail.busy')}</p>
        ) : 'done' in state ? (
          <p class="notice notice-success" role="status">
            {t('confirmEmail.done', { email: state.done })}
          </p>
        ) : (
          <p class="field-error" role="alert">
            {state.error}
          </p>
        )}
        <button type="button" class="primary" onClick={finish}>
          {t('link.toSignIn')}
        </button>
      </section>
    </main>
  );
}
