// API keys of the branch (owner). A new key is shown once, here, with a copy button; the list
// shows only prefixes and last four characters. Free-plan accounts are told why there are none.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { ApiKey, List } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { dateTime } from '../ui/format.ts';
import { problemText, useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';

const loadKeys = () => call<List<ApiKey>>('apiKeys');

export function ApiKeys() {
  const { session } = useSession();
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadKeys);
  const [draft, update, clear] = useDraft('api-key', { mode: 'test' as 'live' | 'test', name: '' });
  const [fresh, setFresh] = useState<ApiKey | null>(null);
  const [busy, setBusy] = useState(false);
  const tz = session.branch.timezone;
  const noApi = !session.account.api_access;

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const key = await call<ApiKey>('createApiKey', { body: { mode: draft.mode, ...(draft.name.trim() ? { name: draft.name.trim() } : {}) } });
      setFresh(key);
      clear();
      reload();
    } catch (err) {
      notify(problemText(err), 'error');
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (k: ApiKey) => {
    if (!confirm(`Revoke ${k.name ?? k.redacted}? Systems using it stop working at once.`)) return;
    try {
      await call('revokeApiKey', { params: { id: k.id } });
      notify(`Revoked ${k.redacted}.`, 'success');
      reload();
    } catch (err) {
      notify(problemText(err), 'error');
    }
  };

  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      notify('Copied.', 'success');
    } catch {
      notify('Copy failed: select the key and copy it by hand.', 'warning');
    }
  };

  return (
    <section class="admin" aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p class="lead">Keys let your point-of-sale system call the readybell API for <strong>{session.branch.name}</strong>. Test keys only see test tickets; live keys only live ones.</p>
      {noApi && <p class="notice notice-warning" role="note">The <strong>{session.account.plan}</strong> plan has no API access, so keys cannot be created. The pro and business plans include the API and webhooks.</p>}
      {fresh !== null && fresh.secret !== null && (
        <div class="secret-once" role="alert">
          <p><strong>Your new {fresh.mode} key.</strong> Copy it now: it is shown only once.</p>
          <code class="secret" data-testid="new-key">{fresh.secret}</code>
          <div class="dialog-actions">
            <button type="button" class="primary" onClick={() => copy(fresh.secret!)}>Copy key</button>
            <button type="button" onClick={() => setFresh(null)}>I have stored it</button>
          </div>
        </div>
      )}
      <form class="inline-form" onSubmit={create} aria-label="Create an API key">
        <label><span>Mode</span>
          <select value={draft.mode} onChange={(e) => update({ mode: e.currentTarget.value as 'live' | 'test' })} disabled={noApi}>
            <option value="test">Test</option><option value="live">Live</option>
          </select>
        </label>
        <label><span>Name <small>(optional)</small></span>
          <input type="text" maxLength={100} value={draft.name} onInput={(e) => update({ name: e.currentTarget.value })} disabled={noApi} placeholder="e.g. Till 1" />
        </label>
        <button type="submit" class="primary" disabled={busy || noApi}>Create key</button>
      </form>
      {error && <p class="field-error" role="alert">{error}</p>}
      {data !== null && (
        <table class="list">
          <caption class="sr-only">API keys</caption>
          <thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {data.data.length === 0 && <tr><td colSpan={6} class="empty">No keys yet.</td></tr>}
            {data.data.map((k) => (
              <tr key={k.id} class={k.revoked_at ? 'revoked' : ''}>
                <td><code>{k.redacted}</code></td>
                <td>{k.name ?? '—'}</td>
                <td><span class={`mode mode-${k.mode}`}>{k.mode}</span></td>
                <td>{dateTime(k.created_at, tz)}</td>
                <td>{dateTime(k.last_used_at, tz)}</td>
                <td>{k.revoked_at ? <span>Revoked {dateTime(k.revoked_at, tz)}</span>
                  : <button type="button" class="danger" onClick={() => revoke(k)} aria-label={`Revoke ${k.redacted}`}>Revoke</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
