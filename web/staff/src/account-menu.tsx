// The account menu: who is signed in, the page's language, the password screen and sign-out.
// A disclosure (a button that shows a panel), closed by Escape, by a click elsewhere and when
// staff move to another screen.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useSession } from './session.tsx';
import { useLanguage } from './i18n/language.tsx';
import { LANGUAGES, t, type Lang } from './i18n/i18n.ts';

export function AccountMenu({ current }: { current: boolean }) {
  const { session, signOut } = useSession();
  const { lang, setLang } = useLanguage();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const esc = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    const nav = () => setOpen(false);
    document.addEventListener('pointerdown', away);
    document.addEventListener('keydown', esc);
    addEventListener('hashchange', nav);
    return () => {
      document.removeEventListener('pointerdown', away);
      document.removeEventListener('keydown', esc);
      removeEventListener('hashchange', nav);
    };
  }, [open]);

  return (
    <div class="account-menu" ref={root}>
      <button
        type="button"
        ref={button}
        class={`account-button${current ? ' current' : ''}`}
        aria-expanded={open}
        aria-controls="account-panel"
        onClick={() => setOpen(!open)}
      >
        <span class="avatar" aria-hidden="true">
          {session.user.email.charAt(0).toUpperCase()}
        </span>
        <span class="account-label">{t('account.menu')}</span>
      </button>
      <div id="account-panel" class="account-panel" hidden={!open}>
        <p class="account-who">
          <strong>{session.user.email}</strong>
          <span>{t('account.roleAt', { role: t(`role.${session.user.role}`), account: session.account.name })}</span>
        </p>
        <label for="language">{t('account.language')}</label>
        <select id="language" value={lang} onChange={(e) => setLang(e.currentTarget.value as Lang)}>
          {Object.entries(LANGUAGES).map(([code, name]) => (
            <option key={code} value={code} lang={code}>
              {name}
            </option>
          ))}
        </select>
        <a href="#/account" class="account-link">
          {t('account.password')}
        </a>
        <button type="button" onClick={signOut}>
          {t('account.signOut')}
        </button>
      </div>
    </div>
  );
}
