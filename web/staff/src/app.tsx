// Boot: find the session (or show sign-in), then the screens. A 401 anywhere brings sign-in back
// without unmounting the page's drafts: forms keep their text in sessionStorage.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { call, onSessionExpired, setCsrfToken, ApiError } from './api.ts';
import type { Session } from './types.ts';
import { SessionContext } from './session.tsx';
import { NoticeProvider } from './ui/notify.tsx';
import { SignIn } from './sign-in.tsx';
import { Shell } from './shell.tsx';

export function App() {
  const [session, setSessionState] = useState<Session | null | 'loading'>('loading');
  const [expired, setExpired] = useState(false);

  const setSession = useCallback((s: Session) => {
    setCsrfToken(s.csrf_token);
    setSessionState(s);
    setExpired(false);
  }, []);

  useEffect(() => {
    call<Session>('session').then(setSession, (err: unknown) => {
      setSessionState(null);
      if (!(err instanceof ApiError) || err.status !== 401) setExpired(false);
    });
    return onSessionExpired(() => {
      setSessionState((prev) => {
        if (prev !== null && prev !== 'loading') setExpired(true);
        return null;
      });
    });
  }, [setSession]);

  const signOut = useCallback(() => {
    call('signOut').finally(() => {
      setSessionState(null);
      setExpired(false);
    });
  }, []);

  return (
    <NoticeProvider>
      {session === 'loading' ? <p class="boot">Loading the staff page…</p>
        : session === null ? <SignIn onSignedIn={setSession} expired={expired} />
        : (
          <SessionContext.Provider value={{ session, setSession, signOut }}>
            <Shell />
          </SessionContext.Provider>
        )}
    </NoticeProvider>
  );
}
