// What a signed-out browser sees, by the address's hash (decision 0081): sign-in (the default),
// sign-up (#/signup), a forgotten password (#/forgot), and the screens of the emailed links,
// #/reset/<token> and #/verify/<token>. The tokens stay after the `#`, never sent to a server but
// in the request that spends them.
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Session } from '../types.ts';
import { SignIn } from '../sign-in.tsx';
import { t } from '../i18n/i18n.ts';
import { SignUp } from './sign-up.tsx';
import { ForgotPassword } from './forgot-password.tsx';
import { ResetPassword } from './reset-password.tsx';
import { VerifyEmail } from './verify-email.tsx';

export type SignupSettings = Awaited<ReturnType<typeof loadSettings>>;
const loadSettings = () => call('getSignupSettings');

export function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    on();
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/** The link token of `#/verify/<token>` or `#/reset/<token>`, else null. */
export const linkToken = (hash: string, screen: 'verify' | 'reset'): string | null =>
  new RegExp(`^#/${screen}/([A-Za-z0-9_-]{1,128})$`).exec(hash)?.[1] ?? null;

export function FrontDoor({ onSignedIn, expired }: { onSignedIn: (s: Session) => void; expired: boolean }) {
  const hash = useHash();
  const [settings, setSettings] = useState<SignupSettings | null>(null);
  useEffect(() => {
    loadSettings().then(setSettings, () => setSettings(null));
  }, []);
  useEffect(() => {
    document.title = `${t(titleOf(hash))} · readybell`;
  }, [hash]);

  const verify = linkToken(hash, 'verify');
  if (verify !== null) return <VerifyEmail token={verify} onSignedIn={onSignedIn} />;
  const reset = linkToken(hash, 'reset');
  if (reset !== null) return <ResetPassword token={reset} />;
  if (hash === '#/forgot') return <ForgotPassword />;
  if (hash === '#/signup') return <SignUp settings={settings} />;
  return (
    <SignIn onSignedIn={onSignedIn} expired={expired}>
      <nav class="door-links" aria-label={t('door.more')}>
        <a href="#/forgot">{t('door.forgot')}</a>
        {settings?.open === true && <a href="#/signup">{t('door.signUp')}</a>}
      </nav>
    </SignIn>
  );
}

function titleOf(hash: string): Parameters<typeof t>[0] {
  if (hash.startsWith('#/verify/')) return 'verify.title';
  if (hash.startsWith('#/reset/')) return 'reset.title';
  if (hash === '#/forgot') return 'forgot.title';
  if (hash === '#/signup') return 'signUp.title';
  return 'signIn.submit';
}
