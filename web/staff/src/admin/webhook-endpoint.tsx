// One webhook endpoint: reveal or rotate its secret, send a test event, disable or delete it,
// and its recent deliveries with status, answer and a retry button.
import { useCallback } from 'preact/hooks';
import { call } from '../api.ts';
import type { List, WebhookDelivery, WebhookEndpoint, WebhookSecret } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { dateTime } from '../ui/format.ts';
import { problemText, useLoad } from '../ui/load.ts';

type Props = { endpoint: WebhookEndpoint; onChanged: () => void; onSecret: (secret: string) => void };

export function EndpointDetail({ endpoint: ep, onChanged, onSecret }: Props) {
  const { session } = useSession();
  const notify = useNotify();
  const load = useCallback(() => call<List<WebhookDelivery>>('webhookDeliveries', { params: { id: ep.id }, query: { limit: 20 } }), [ep.id]);
  const deliveries = useLoad(load);
  const tz = session.branch.timezone;

  const run = async (fn: () => Promise<unknown>, done: string | null) => {
    try {
      await fn();
      if (done) notify(done, 'success');
      deliveries.reload();
      onChanged();
    } catch (err) {
      notify(problemText(err), 'error');
    }
  };
  const reveal = () => run(async () => onSecret((await call<WebhookSecret>('webhookSecret', { params: { id: ep.id } })).secret), null);
  const rotate = () => confirm('Rotate the secret? The old one keeps signing for 24 hours, so you can update the receiver.') &&
    run(async () => onSecret((await call<WebhookEndpoint>('rotateWebhookSecret', { params: { id: ep.id }, body: {} })).secret ?? ''), 'Secret rotated.');
  const test = () => run(() => call('testWebhook', { params: { id: ep.id }, body: {} }), 'Test event queued; it appears below once sent.');
  const setDisabled = (disabled: boolean) => run(() => call('updateWebhookEndpoint', { params: { id: ep.id }, body: { disabled } }), disabled ? 'Endpoint disabled.' : 'Endpoint enabled.');
  const remove = () => confirm(`Delete ${ep.url} and its delivery log?`) && run(() => call('deleteWebhookEndpoint', { params: { id: ep.id } }), 'Endpoint deleted.');
  const retry = (d: WebhookDelivery) => run(() => call('retryWebhookDelivery', { params: { id: d.id }, body: {} }), `Retrying ${d.event_type}.`);

  return (
    <div class="endpoint-detail">
      <div class="row-actions left">
        <button type="button" onClick={reveal}>Reveal secret</button>
        <button type="button" onClick={rotate}>Rotate secret</button>
        <button type="button" onClick={test}>Send test event</button>
        <button type="button" onClick={() => setDisabled(!ep.disabled)}>{ep.disabled ? 'Enable' : 'Disable'}</button>
        <button type="button" class="danger" onClick={remove}>Delete</button>
        <button type="button" class="quiet" onClick={deliveries.reload}>Refresh deliveries</button>
      </div>
      {ep.previous_secret_expires_at && <p class="hint">The previous secret still signs until {dateTime(ep.previous_secret_expires_at, tz)}.</p>}
      {deliveries.error && <p class="field-error" role="alert">{deliveries.error}</p>}
      {deliveries.data !== null && (
        <table class="list">
          <caption>Recent deliveries</caption>
          <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Answer</th><th scope="col">Attempts</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {deliveries.data.data.length === 0 && <tr><td colSpan={6} class="empty">No delivery yet.</td></tr>}
            {deliveries.data.data.map((d) => (
              <tr key={d.id}>
                <td><code>{d.event_type}</code></td>
                <td><span class={`badge status-${d.status}`}>{d.status}</span>{d.next_attempt_at && <span class="hint"> next {dateTime(d.next_attempt_at, tz)}</span>}</td>
                <td>{d.last_response_status ?? (d.last_error ? <span title={d.last_error}>{d.last_error.slice(0, 60)}</span> : '—')}</td>
                <td>{d.attempt_count}</td>
                <td>{dateTime(d.created_at, tz)}</td>
                <td><button type="button" onClick={() => retry(d)} aria-label={`Retry ${d.event_type} delivery`}>Retry</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
