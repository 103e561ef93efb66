// Square (owner): connect the branch to a Square seller account so its Square orders become tickets
// (issue 29, docs/square-owner.md). The screen follows the connection's status: nothing to press
// while the operator has set up no Square application; "Connect Square" sends the browser to
// Square's consent page; back from it, the owner picks the location, queue and Ready setting; once
// connected, what is connected and since when, the setting, and Disconnect; a token Square would no
// longer refresh is a warning with Reconnect, since orders stop arriving without it.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { SquareConnection } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/load.ts';
import { FieldError, problemText } from '../ui/field-errors.tsx';
import { t, type MessageKey } from '../i18n/i18n.ts';
import { LoadError } from './form-and-table.tsx';
import { SquareLocationForm } from './square-location-form.tsx';
import { clearOAuthReturn, oauthReturn, type OAuthReturn } from './connector-return.ts';

const loadConnection = () => call('getSquareConnection');

export function SquareConnector() {
  const loaded = useLoad(loadConnection);
  // What PATCH and DELETE answered replaces what was loaded; no second read.
  const [answered, setAnswered] = useState<SquareConnection | null>(null);
  const c = answered ?? loaded.data;
  const [returned] = useState<OAuthReturn | null>(() => oauthReturn('square'));
  useEffect(() => clearOAuthReturn('square'), []);
  // A change of state replaces the part of the screen that had focus (the form, Disconnect):
  // focus goes to the screen's heading, so the keyboard and screen readers start from the top.
  const heading = useRef<HTMLHeadingElement>(null);
  const status = c?.status;
  const seen = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (seen.current !== undefined && status !== seen.current) {
      // Disconnect answers while its dialog is still open, and an open modal dialog keeps focus
      // from the page: the heading takes it once the dialog has closed.
      const focus = () => heading.current?.focus();
      const dialog = document.querySelector('dialog[open]');
      if (dialog === null) focus();
      else dialog.addEventListener('close', focus, { once: true });
    }
    seen.current = status;
  }, [status]);

  return (
    <section class="admin square" aria-labelledby="square-title">
      <h1 id="square-title" ref={heading} tabIndex={-1}>
        {t('square.heading')}
      </h1>
      <p class="lead">{t('square.lead')}</p>
      {/* What Square's redirect said holds until the owner changes something here. */}
      {returned !== null && answered === null && <ReturnNotice returned={returned} />}
      <LoadError error={loaded.error} />
      {c === null && loaded.error === null && <p class="empty">{t('square.loading')}</p>}
      {c !== null && <Connection c={c} onChanged={setAnswered} />}
    </section>
  );
}

/** The callback's codes that have their own sentence; any other is named in a general one. */
const RETURN_TEXT: Partial<Record<string, MessageKey>> = {
  access_denied: 'square.returnDeclined',
  state_mismatch: 'square.returnStale',
  token_exchange_failed: 'square.returnExchange',
  not_configured: 'square.notConfigured',
};

/** The sentence that says how the trip to Square's consent page ended. */
function ReturnNotice({ returned }: { returned: OAuthReturn }) {
  if (returned.kind === 'connected')
    return (
      <p class="notice notice-success" role="status">
        {t('square.returnConnected')}
      </p>
    );
  return (
    <p class="notice notice-warning" role="alert" data-testid="square-return-error">
      {RETURN_TEXT[returned.code] !== undefined ? t(RETURN_TEXT[returned.code]!) : t('square.returnFailed', { code: returned.code })}
    </p>
  );
}

type Props = { c: SquareConnection; onChanged: (c: SquareConnection) => void };

function Connection({ c, onChanged }: Props) {
  const notify = useNotify();
  switch (c.status) {
    case 'not_configured':
      return (
        <p class="notice notice-info" role="note">
          {t('square.notConfigured')}
        </p>
      );
    case 'not_connected':
      return (
        <>
          <ol class="square-steps">
            <li>{t('square.step1')}</li>
            <li>{t('square.step2')}</li>
            <li>{t('square.step3')}</li>
          </ol>
          <ConnectButton label={t('square.connect')} primary />
        </>
      );
    case 'choose_location':
      return (
        <>
          <p>{t('square.chooseLead', { merchant: c.merchant_name ?? c.merchant_id ?? '' })}</p>
          <SandboxNote c={c} />
          <SquareLocationForm
            connection={c}
            submitLabel={t('square.start')}
            onSaved={(next) => {
              onChanged(next);
              notify(t('square.started', { location: next.location?.name ?? '' }), 'success');
            }}
          />
          <Disconnect c={c} onChanged={onChanged} />
        </>
      );
    case 'connected':
    case 'refresh_failed':
      return <Connected c={c} onChanged={onChanged} />;
  }
}

/** Asks the API for Square's consent page (its state bound to this session) and goes there. */
function ConnectButton({ label, primary = false }: { label: string; primary?: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const connect = async () => {
    setBusy(true);
    setError(null);
    try {
      const { authorize_url } = await call('authorizeSquare');
      location.assign(authorize_url);
    } catch (err) {
      setError(problemText(err));
      setBusy(false);
    }
  };
  return (
    <div class="square-connect">
      <button
        type="button"
        class={primary ? 'primary' : undefined}
        disabled={busy}
        onClick={connect}
        aria-describedby={error !== null ? 'sq-connect-error' : undefined}
      >
        {busy ? t('square.opening') : label}
      </button>
      <FieldError id="sq-connect" text={error} />
    </div>
  );
}

function Connected({ c, onChanged }: Props) {
  const { session } = useSession();
  const notify = useNotify();
  const [editing, setEditing] = useState(false);
  const [toggleError, setToggleError] = useState<string | null>(null);
  const tz = session.branch.timezone;

  const toggle = useCallback(
    async (on: boolean) => {
      setToggleError(null);
      try {
        onChanged(await call('updateSquareConnection', { body: { mark_prepared: on } }));
        notify(t(on ? 'square.markPreparedOn' : 'square.markPreparedOff'), 'success');
      } catch (err) {
        setToggleError(problemText(err));
      }
    },
    [onChanged, notify],
  );

  return (
    <>
      {c.status === 'refresh_failed' && (
        <div class="notice notice-warning square-warning" role="alert">
          <span>
            <strong>{t('square.refreshFailed')}</strong>{' '}
            {c.last_error !== null && <>{t('square.squareSaid', { error: c.last_error.replace(/\.$/, '') })} </>}
            {t('square.reconnectHint')}
          </span>
        </div>
      )}
      {c.status === 'refresh_failed' && <ConnectButton label={t('square.reconnect')} primary />}
      {c.status === 'connected' && (
        <p class="square-state">
          <span class="badge badge-on">{t('square.connected')}</span>
        </p>
      )}
      <dl class="square-facts">
        <div>
          <dt>{t('square.account')}</dt>
          <dd>
            {c.merchant_name ?? c.merchant_id ?? '—'}
            {c.environment === 'sandbox' && <span class="badge mode-test">{t('square.sandbox')}</span>}
          </dd>
        </div>
        <div>
          <dt>{t('square.location')}</dt>
          <dd>{c.location?.name ?? '—'}</dd>
        </div>
        <div>
          <dt>{t('square.queue')}</dt>
          <dd>{c.queue ?? t('square.defaultQueue')}</dd>
        </div>
        <div>
          <dt>{t('square.since')}</dt>
          <dd>{dateTime(c.connected_at, tz)}</dd>
        </div>
      </dl>
      <SandboxNote c={c} />
      {editing ? (
        <SquareLocationForm
          connection={c}
          submitLabel={t('square.save')}
          onSaved={(next) => {
            setEditing(false);
            onChanged(next);
            notify(t('square.saved'), 'success');
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <>
          <label class="check square-toggle">
            <input
              type="checkbox"
              checked={c.mark_prepared}
              onChange={(e) => toggle(e.currentTarget.checked)}
              aria-describedby={toggleError !== null ? 'sq-toggle-error' : 'sq-toggle-note'}
            />
            {t('square.markPrepared')}
          </label>
          <p class="hint" id="sq-toggle-note">
            {t('square.markPreparedNote')}
          </p>
          <FieldError id="sq-toggle" text={toggleError} />
          <div class="row-actions left">
            <button type="button" onClick={() => setEditing(true)}>
              {t('square.change')}
            </button>
            <Disconnect c={c} onChanged={onChanged} inline />
          </div>
        </>
      )}
    </>
  );
}

/** Square's sandbox makes test tickets (decision 0073): said where the owner would look for them. */
function SandboxNote({ c }: { c: SquareConnection }) {
  if (c.environment !== 'sandbox') return null;
  return <p class="hint">{t('square.sandboxNote')}</p>;
}

/** Disconnect, after asking: Square revokes the token, readybell erases it, orders stop coming. */
function Disconnect({ c, onChanged, inline = false }: { c: SquareConnection; onChanged: (c: SquareConnection) => void; inline?: boolean }) {
  const confirm = useConfirm();
  const notify = useNotify();
  const disconnect = () =>
    confirm({
      title: t('square.disconnectTitle', { merchant: c.merchant_name ?? c.merchant_id ?? 'Square' }),
      body: t('square.disconnectBody'),
      confirm: t('square.disconnect'),
      danger: true,
      action: async () => {
        onChanged(await call('disconnectSquare'));
        notify(t('square.disconnected'), 'success');
      },
    });
  const button = (
    <button type="button" class="danger" onClick={disconnect}>
      {t('square.disconnect')}
    </button>
  );
  return inline ? button : <div class="row-actions left square-disconnect">{button}</div>;
}
