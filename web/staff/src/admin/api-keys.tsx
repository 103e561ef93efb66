// API keys of the branch (owner). A new key is shown once, here, with a copy button; the list
// shows only prefixes and last four characters. Revoking asks first, in the page's own dialog.
// The table keeps its columns when a key is revoked: state has a column of its own, so a revoke
// changes a word, not the layout. Free-plan accounts are told why there are none.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { ApiKey } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { FieldError, useFormErrors } from '../ui/field-errors.tsx';
import { t } from '../i18n/i18n.ts';

const loadKeys = () => call('listApiKeys');
const FIELDS = ['mode', 'name'] as const;

export function ApiKeys() {
  const { session } = useSession();
  const notify = useNotify();
  const confirm = useConfirm();
  const { data, error, reload } = useLoad(loadKeys);
  const [draft, update, clear] = useDraft('api-key', { mode: 'test' as 'live' | 'test', name: '' });
  const [fresh, setFresh] = useState<ApiKey | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(FIELDS);
  const tz = session.branch.timezone;
  const noApi = !session.account.api_access;

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    try {
      const key = await call('createApiKey', { body: { mode: draft.mode, ...(draft.name.trim() ? { name: draft.name.trim() } : {}) } });
      setFresh(key);
      clear();
      reload();
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };

  const revoke = (k: ApiKey) =>
    confirm({
      title: t('keys.revokeTitle', { key: k.name ?? k.redacted }),
      body: t('keys.revokeBody'),
      confirm: t('keys.revoke'),
      danger: true,
      action: async () => {
        await call('revokeApiKey', { params: { id: k.id } });
        notify(t('keys.revoked', { key: k.redacted }), 'success');
        reload();
      },
    });

  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      notify(t('keys.copied'), 'success');
    } catch {
      notify(t('keys.copyFailed'), 'warning');
    }
  };

  return (
    <section class="admin" aria-labelledby="keys-title">
      <h1 id="keys-title">{t('keys.heading')}</h1>
      <p class="lead">{t('keys.lead', { branch: session.branch.name })}</p>
      {noApi && (
        <p class="notice notice-warning" role="note">
          {t('keys.noApi', { plan: session.account.plan })}
        </p>
      )}
      {fresh !== null && fresh.secret !== null && (
        <div class="secret-once" role="alert">
          <p>
            <strong>{t(fresh.mode === 'live' ? 'keys.newLive' : 'keys.newTest')}</strong> {t('keys.onlyOnce')}
          </p>
          <code class="secret" data-testid="new-key">
            {fresh.secret}
          </code>
          <div class="dialog-actions">
            <button type="button" class="primary" onClick={() => copy(fresh.secret!)}>
              {t('keys.copy')}
            </button>
            <button type="button" onClick={() => setFresh(null)}>
              {t('keys.stored')}
            </button>
          </div>
        </div>
      )}
      <form class="inline-form" onSubmit={create} aria-label={t('keys.createLabel')}>
        <label>
          <span>{t('keys.mode')}</span>
          <select
            id="key-mode"
            value={draft.mode}
            onChange={(e) => update({ mode: e.currentTarget.value as 'live' | 'test' })}
            disabled={noApi}
            {...form.bind('mode', 'key-mode')}
          >
            <option value="test">{t('mode.test')}</option>
            <option value="live">{t('mode.live')}</option>
          </select>
          <FieldError id="key-mode" text={form.errors.fields.mode} />
        </label>
        <label>
          <span>
            {t('keys.name')} <small>{t('form.optional')}</small>
          </span>
          <input
            id="key-name"
            type="text"
            maxLength={100}
            value={draft.name}
            onInput={(e) => update({ name: e.currentTarget.value })}
            disabled={noApi}
            placeholder={t('keys.namePlaceholder')}
            {...form.bind('name', 'key-name')}
          />
          <FieldError id="key-name" text={form.errors.fields.name} />
        </label>
        <div class="form-submit">
          <button
            type="submit"
            class="primary"
            disabled={busy || noApi}
            aria-describedby={form.errors.form !== null ? 'key-form-error' : undefined}
          >
            {t('keys.create')}
          </button>
          <FieldError id="key-form" text={form.errors.form} />
        </div>
      </form>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
      {data !== null && (
        <div class="table-wrap">
          <table class="list keys">
            <caption class="sr-only">{t('keys.heading')}</caption>
            <colgroup>
              <col class="c-key" />
              <col class="c-name" />
              <col class="c-mode" />
              <col class="c-date" />
              <col class="c-date" />
              <col class="c-state" />
              <col class="c-act" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col">{t('keys.colKey')}</th>
                <th scope="col">{t('keys.name')}</th>
                <th scope="col">{t('keys.mode')}</th>
                <th scope="col" class="wide-only">
                  {t('keys.colCreated')}
                </th>
                <th scope="col" class="wide-only">
                  {t('keys.colUsed')}
                </th>
                <th scope="col">{t('keys.colState')}</th>
                <th scope="col">
                  <span class="sr-only">{t('table.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.data.length === 0 && (
                <tr>
                  <td colSpan={7} class="empty">
                    {t('keys.none')}
                  </td>
                </tr>
              )}
              {data.data.map((k) => (
                <tr key={k.id} class={k.revoked_at ? 'revoked' : ''}>
                  <td>
                    <code>{k.redacted}</code>
                  </td>
                  <td class="wrap">{k.name ?? '—'}</td>
                  <td>
                    <span class={`mode mode-${k.mode}`}>{t(k.mode === 'live' ? 'mode.live' : 'mode.test')}</span>
                  </td>
                  <td class="wide-only">{dateTime(k.created_at, tz)}</td>
                  <td class="wide-only">{dateTime(k.last_used_at, tz)}</td>
                  <td>
                    {k.revoked_at ? (
                      <span class="badge badge-off" title={dateTime(k.revoked_at, tz)}>
                        {t('keys.stateRevoked')}
                      </span>
                    ) : (
                      <span class="badge badge-on">{t('keys.stateActive')}</span>
                    )}
                  </td>
                  <td class="row-actions">
                    {k.revoked_at === null && (
                      <button
                        type="button"
                        class="danger"
                        onClick={() => revoke(k)}
                        aria-label={t('keys.revokeLabel', { key: k.redacted })}
                      >
                        {t('keys.revoke')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
