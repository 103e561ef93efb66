// The first-run checklist on a new shop's board (decision 0081): print a test ticket, open its
// customer page on a phone, create a live key (after verifying the address). Each item ticks
// itself from what the board and the API show; the owner hides the list when done with it.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { call } from '../api.ts';
import type { Ticket } from '../types.ts';
import { useSession } from '../session.tsx';
import { problemText } from '../ui/field-errors.tsx';
import { currentLanguage, t } from '../i18n/i18n.ts';
import { endFirstRun, firstRunWanted, firstTestKey } from './first-run-state.ts';

export function FirstRun({ tickets }: { tickets: readonly Ticket[] }) {
  const { session } = useSession();
  const [shown, setShown] = useState(() => session.user.role === 'owner' && firstRunWanted(session.account.id));
  const [liveKey, setLiveKey] = useState(false);
  const [resent, setResent] = useState<string | null>(null);
  useEffect(() => {
    if (!shown || !session.account.api_access) return;
    call('listApiKeys').then(
      (l) => setLiveKey(l.data.some((k) => k.mode === 'live' && k.revoked_at === null)),
      () => {},
    );
  }, [shown]);
  if (!shown) return null;

  const printed = tickets.length > 0;
  const viewed = tickets.some((tk) => tk.customer.viewed_at !== null);
  const testKey = firstTestKey();
  const resend = async () => {
    try {
      const r = await call('sendVerificationEmail', { body: { language: currentLanguage() } });
      setResent(r.email_delivery === 'log' ? t('door.loggedLink') : t('firstRun.resent', { email: session.user.email }));
    } catch (err) {
      setResent(problemText(err));
    }
  };
  const item = (done: boolean, title: string, how: string, extra?: ComponentChildren) => (
    <li class={done ? 'done' : undefined}>
      <span class="check" aria-hidden="true">
        {done ? '✓' : '○'}
      </span>
      <span>
        <strong>{title}</strong>
        <span class="sr-only">{done ? ` (${t('firstRun.done')})` : ''}</span>
        <br />
        {how}
        {extra}
      </span>
    </li>
  );

  return (
    <section class="first-run card" aria-labelledby="first-run-title">
      <h2 id="first-run-title">{t('firstRun.title', { shop: session.account.name })}</h2>
      {testKey !== null && (
        <p class="hint">
          {t('firstRun.testKey')} <code class="secret">{testKey}</code>
        </p>
      )}
      <ol class="checklist">
        {item(printed, t('firstRun.print'), t('firstRun.printHow'))}
        {item(viewed, t('firstRun.phone'), t('firstRun.phoneHow'))}
        {item(
          liveKey,
          t('firstRun.live'),
          session.user.email_verified ? t('firstRun.liveHow') : t('firstRun.verifyFirst', { email: session.user.email }),
          session.user.email_verified ? (
            <>
              {' '}
              <a href="#/admin/keys">{t('nav.keys')}</a>
            </>
          ) : (
            <>
              {' '}
              <button type="button" onClick={resend}>
                {t('firstRun.resend')}
              </button>
              {resent !== null && <span role="status"> {resent}</span>}
            </>
          ),
        )}
      </ol>
      <button
        type="button"
        onClick={() => {
          endFirstRun(session.account.id);
          setShown(false);
        }}
      >
        {t('firstRun.hide')}
      </button>
    </section>
  );
}
