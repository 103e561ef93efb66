// Sign-in. The server answers one message for any wrong email or password, and 429 with a wait
// when there were too many tries; both are shown as they come.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError, call } from './api.ts';
import type { Session } from './types.ts';
import { problemText } from './ui/field-errors.tsx';
import { t } from './i18n/i18n.ts';

/** `children`: what is offered beside signing in (a forgotten password, sign-up), under the form. */
export function SignIn({
  onSignedIn,
  expired,
  children,
}: {
  onSignedIn: (s: Session) => void;
  expired: boolean;
  children?: ComponentChildren;
}) {
  const [email, setEmail] = useState(() => localStorage.getItem('readybell:email') ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    (email === '' ? emailRef : passwordRef).current?.focus();
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const s = await call('createSession', { body: { email, password } });
      localStorage.setItem('readybell:email', email);
      onSignedIn(s);
    } catch (err) {
      setPassword('');
      setError(err instanceof ApiError && err.problem.code === 'unauthenticated' ? t('signIn.wrong') : problemText(err));
      passwordRef.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title" class="card">
        <h1 id="sign-in-title">
          <span class="brand">readybell</span> {t('signIn.staff')}
        </h1>
        {expired && (
          <p class="notice notice-warning" role="status">
            {t('signIn.expired')}
          </p>
        )}
        <label for="email">{t('signIn.email')}</label>
        <input
          id="email"
          ref={emailRef}
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="password">{t('signIn.password')}</label>
        <input
          id="password"
          ref={passwordRef}
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          aria-describedby={error ? 'sign-in-error' : undefined}
          aria-invalid={error ? 'true' : undefined}
        />
        {error && (
          <p id="sign-in-error" class="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('signIn.busy') : t('signIn.submit')}
        </button>
        {children}
      </form>
    </main>
  );
}
