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
import { useFormErrors } from '../ui/field-errors.tsx';
import { Field, FormSubmit, ListTable, LoadError } from './form-and-table.tsx';
import { SecretOnce } from './secret-once.tsx';
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
        <SecretOnce
          title={t(fresh.mode === 'live' ? 'keys.newLive' : 'keys.newTest')}
          body={t('keys.onlyOnce')}
          secret={fresh.secret}
          testId="new-key"
        >
          <button type="button" class="primary" onClick={() => copy(fresh.secret!)}>
            {t('keys.copy')}
          </button>
          <button type="button" onClick={() => setFresh(null)}>
            {t('keys.stored')}
          </button>
        </SecretOnce>
      )}
      <form class="inline-form" onSubmit={create} aria-label={t('keys.createLabel')}>
        <Field id="key-mode" label={t('keys.mode')} error={form.errors.fields.mode}>
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
        </Field>
        <Field id="key-name" label={t('keys.name')} note={t('form.optional')} error={form.errors.fields.name}>
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
        </Field>
        <FormSubmit id="key-form" label={t('keys.create')} error={form.errors.form} disabled={busy || noApi} />
      </form>
      <LoadError error={error} />
      {data !== null && (
        <ListTable
          kind="keys"
          caption={t('keys.heading')}
          cols={['c-key', 'c-name', 'c-mode', 'c-date', 'c-date', 'c-state', 'c-act']}
          columns={[
            { label: t('keys.colKey') },
            { label: t('keys.name') },
            { label: t('keys.mode') },
            { label: t('keys.colCreated'), wide: true },
            { label: t('keys.colUsed'), wide: true },
            { label: t('keys.colState') },
          ]}
          empty={data.data.length === 0 ? t('keys.none') : null}
        >
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
                  <button type="button" class="danger" onClick={() => revoke(k)} aria-label={t('keys.revokeLabel', { key: k.redacted })}>
                    {t('keys.revoke')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </section>
  );
}
