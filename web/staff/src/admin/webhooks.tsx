// Webhook endpoints of the branch (owner; live mode, https only). The signing secret is shown
// when created or rotated, and can be revealed again on demand; deliveries open per endpoint.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { List, WebhookEndpoint } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { dateTime } from '../ui/format.ts';
import { problemText, useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { EndpointDetail } from './webhook-endpoint.tsx';

const EVENTS = ['ticket.created', 'ticket.ready', 'ticket.rung', 'ticket.collected', 'ticket.cancelled', 'ticket.expired',
  'ticket.customer_viewed', 'ticket.customer_subscribed', 'ticket.customer_acknowledged', 'ticket.customer_snoozed'];
const loadEndpoints = () => call<List<WebhookEndpoint>>('webhookEndpoints');

export function Webhooks() {
  const { session } = useSession();
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadEndpoints);
  const [draft, update, clear] = useDraft('webhook', { url: 'https://', description: '', all: true, events: [] as string[] });
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const noApi = !session.account.api_access;

  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const body: Record<string, unknown> = { url: draft.url.trim(), enabled_events: draft.all ? ['*'] : draft.events };
      if (draft.description.trim() !== '') body.description = draft.description.trim();
      const ep = await call<WebhookEndpoint>('createWebhookEndpoint', { body });
      if (ep.secret) setSecret({ url: ep.url, secret: ep.secret });
      clear();
      reload();
    } catch (err) {
      notify(problemText(err), 'error');
    }
  };
  const toggle = (ev: string, on: boolean) => update({ events: on ? [...draft.events, ev] : draft.events.filter((x) => x !== ev) });

  return (
    <section class="admin" aria-labelledby="wh-title">
      <h1 id="wh-title">Webhooks</h1>
      <p class="lead">readybell POSTs signed events (live mode) to these addresses. Verify the <code>Service-Signature</code> header with the endpoint's secret.</p>
      {noApi && <p class="notice notice-warning" role="note">Webhooks are part of the pro and business plans; this account is on <strong>{session.account.plan}</strong>.</p>}
      {data?.data.filter((ep) => ep.disabled && ep.disabled_reason !== null).map((ep) => (
        <p key={ep.id} class="notice notice-warning" role="note"><strong>{ep.url}</strong> is disabled: {ep.disabled_reason}</p>
      ))}
      {secret !== null && (
        <div class="secret-once" role="alert">
          <p><strong>Signing secret for {secret.url}.</strong> Store it in your receiver; you can reveal it again here.</p>
          <code class="secret" data-testid="webhook-secret">{secret.secret}</code>
          <div class="dialog-actions"><button type="button" onClick={() => setSecret(null)}>Done</button></div>
        </div>
      )}
      <form class="settings" onSubmit={create} aria-label="Add a webhook endpoint">
        <label for="wh-url">Endpoint URL <small>(https)</small></label>
        <input id="wh-url" type="url" required maxLength={2048} value={draft.url} onInput={(e) => update({ url: e.currentTarget.value })} disabled={noApi} />
        <label for="wh-desc">Description <small>(optional)</small></label>
        <input id="wh-desc" maxLength={500} value={draft.description} onInput={(e) => update({ description: e.currentTarget.value })} disabled={noApi} />
        <label class="check"><input type="checkbox" checked={draft.all} onChange={(e) => update({ all: e.currentTarget.checked })} disabled={noApi} /> Every event</label>
        {!draft.all && (
          <fieldset class="checks"><legend>Events</legend>
            {EVENTS.map((ev) => <label key={ev} class="check"><input type="checkbox" checked={draft.events.includes(ev)} onChange={(e) => toggle(ev, e.currentTarget.checked)} /> <code>{ev}</code></label>)}
          </fieldset>
        )}
        <div class="dialog-actions"><button type="submit" class="primary" disabled={noApi}>Add endpoint</button></div>
      </form>
      {error && <p class="field-error" role="alert">{error}</p>}
      {data !== null && (
        <ul class="plain-list endpoints">
          {data.data.length === 0 && <li class="empty">No endpoint yet.</li>}
          {data.data.map((ep) => (
            <li key={ep.id} class="endpoint">
              <div class="endpoint-head">
                <strong class="endpoint-url">{ep.url}</strong>
                <span class={`badge ${ep.disabled ? 'badge-off' : 'badge-on'}`}>{ep.disabled ? 'disabled' : 'enabled'}</span>
              </div>
              {ep.description && <p>{ep.description}</p>}
              <p class="hint">Events: {ep.enabled_events.includes('*') ? 'every event' : ep.enabled_events.join(', ')} · since {dateTime(ep.created_at, session.branch.timezone)}</p>
              <button type="button" aria-expanded={open === ep.id} onClick={() => setOpen(open === ep.id ? null : ep.id)}>
                {open === ep.id ? 'Hide details' : 'Secret, test and deliveries'}
              </button>
              {open === ep.id && <EndpointDetail endpoint={ep} onChanged={reload} onSecret={(s) => setSecret({ url: ep.url, secret: s })} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
