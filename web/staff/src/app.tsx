// Boot: find the session (or show sign-in), then the screens. A 401 anywhere brings sign-in back
// without unmounting the page's drafts: forms keep their text in sessionStorage. The language and
// the mode (live or test data) are chosen here, above every screen, so changing either renders
// every screen again in the new one.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { call, onSessionExpired, setCsrfToken, setMode as setRequestMode, type Mode } from './api.ts';
import type { Session } from './types.ts';
import { saveMode, savedMode, SessionContext } from './session.tsx';
import { NoticeProvider } from './ui/notify.tsx';
import { ConfirmProvider } from './ui/dialog.tsx';
import { LanguageContext } from './i18n/language.tsx';
import { setLanguage, t, type Lang } from './i18n/i18n.ts';
import { FrontDoor, linkToken, useHash } from './welcome/front-door.tsx';
import { Shell } from './shell.tsx';
import { AccountDeleted } from './account-deleted.tsx';
import { LinkScreens, linkScreen } from './links.tsx';

const initialMode = savedMode();
setRequestMode(initialMode);

export function App({ initialLang }: { initialLang: Lang }) {
  const [session, setSessionState] = useState<Session | null | 'loading'>('loading');
  const [expired, setExpired] = useState(false);
  const [lang, setLang] = useState<Lang>(initialLang);
  const [mode, setModeState] = useState<Mode>(initialMode);
  // An emailed link's screen comes first, whether or not a session exists.
  const [link, setLink] = useState(linkScreen);
  // A verification link opened while signed in still spends it (and signs in as its user).
  const verifying = linkToken(useHash(), 'verify') !== null;

  const setSession = useCallback((s: Session) => {
    setCsrfToken(s.csrf_token);
    // Without API access there is no test data to show.
    if (!s.account.api_access && s.mode === 'test') {
      setRequestMode('live');
      saveMode('live');
      setModeState('live');
    }
    setSessionState(s);
    setExpired(false);
  }, []);

  const setMode = useCallback((m: Mode) => {
    setRequestMode(m);
    saveMode(m);
    setModeState(m);
  }, []);

  const chooseLanguage = useCallback((l: Lang) => {
    void setLanguage(l, true).then(() => setLang(l));
  }, []);

  useEffect(() => {
    call('getSession').then(setSession, () => setSessionState(null));
    return onSessionExpired(() => {
      setSessionState((prev) => {
        if (prev !== null && prev !== 'loading') setExpired(true);
        return null;
      });
    });
  }, [setSession]);

  const signOut = useCallback(() => {
    call('deleteSession').finally(() => {
      setSessionState(null);
      setExpired(false);
    });
  }, []);

  return (
    <LanguageContext.Provider value={{ lang, setLang: chooseLanguage }}>
      <NoticeProvider key={lang}>
        <ConfirmProvider>
          {link !== null ? (
            <LinkScreens
              screen={link}
              onSignedIn={(s) => {
                setLink(null);
                setSession(s);
              }}
              onDone={() => setLink(null)}
            />
          ) : session === 'loading' ? (
            <p class="boot">{t('boot.loading')}</p>
          ) : session === null || verifying ? (
            <FrontDoor onSignedIn={setSession} expired={expired} />
          ) : (
            <SessionContext.Provider value={{ session, setSession, signOut, mode, setMode }}>
              {session.account.deletion_requested_at === null ? <Shell /> : <AccountDeleted />}
            </SessionContext.Provider>
          )}
        </ConfirmProvider>
      </NoticeProvider>
    </LanguageContext.Provider>
  );
}
