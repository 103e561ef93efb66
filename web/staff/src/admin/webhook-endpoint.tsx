// One webhook endpoint: reveal or rotate its secret, send a test event, disable or delete it,
// and its recent deliveries with status, answer and a retry button. Rotating and deleting ask
// first; a failure is shown under the buttons of this endpoint.
import { useCallback, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { WebhookDelivery, WebhookEndpoint } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/load.ts';
import { FieldError, problemText } from '../ui/field-errors.tsx';
import { ListTable, LoadError } from './form-and-table.tsx';
import { t } from '../i18n/i18n.ts';

type Props = { endpoint: WebhookEndpoint; onChanged: () => void; onSecret: (secret: string) => void };

export function EndpointDetail({ endpoint: ep, onChanged, onSecret }: Props) {
  const { session } = useSession();
  const notify = useNotify();
  const confirm = useConfirm();
  const load = useCallback(() => call('listWebhookEndpointDeliveries', { params: { id: ep.id }, query: { limit: 20 } }), [ep.id]);
  const deliveries = useLoad(load);
  const [failure, setFailure] = useState<string | null>(null);
  const tz = session.branch.timezone;

  const changed = (done: string | null) => {
    if (done) notify(done, 'success');
    deliveries.reload();
    onChanged();
  };
  const run = async (fn: () => Promise<unknown>, done: string | null) => {
    setFailure(null);
    try {
      await fn();
      changed(done);
    } catch (err) {
      setFailure(problemText(err));
    }
  };
  const reveal = () => run(async () => onSecret((await call('getWebhookEndpointSecret', { params: { id: ep.id } })).secret), null);
  const rotate = () =>
    confirm({
      title: t('endpoint.rotateTitle'),
      body: t('endpoint.rotateBody'),
      confirm: t('endpoint.rotate'),
      action: async () => {
        onSecret((await call('rotateWebhookEndpointSecret', { params: { id: ep.id }, body: {} })).secret ?? '');
        changed(t('endpoint.rotated'));
      },
    });
  const test = () => run(() => call('testWebhookEndpoint', { params: { id: ep.id }, body: {} }), t('endpoint.testQueued'));
  const setDisabled = (disabled: boolean) =>
    run(
      () => call('updateWebhookEndpoint', { params: { id: ep.id }, body: { disabled } }),
      t(disabled ? 'endpoint.disabledDone' : 'endpoint.enabledDone'),
    );
  const remove = () =>
    confirm({
      title: t('endpoint.deleteTitle', { url: ep.url }),
      body: t('endpoint.deleteBody'),
      confirm: t('endpoint.delete'),
      danger: true,
      action: async () => {
        await call('deleteWebhookEndpoint', { params: { id: ep.id } });
        notify(t('endpoint.deleted'), 'success');
        onChanged();
      },
    });
  const retry = (d: WebhookDelivery) =>
    run(() => call('retryWebhookDelivery', { params: { id: d.id }, body: {} }), t('endpoint.retrying', { event: d.event_type }));

  return (
    <div class="endpoint-detail">
      <div class="row-actions left">
        <button type="button" onClick={reveal}>
          {t('endpoint.reveal')}
        </button>
        <button type="button" onClick={rotate}>
          {t('endpoint.rotate')}
        </button>
        <button type="button" onClick={test}>
          {t('endpoint.test')}
        </button>
        <button type="button" onClick={() => setDisabled(!ep.disabled)}>
          {t(ep.disabled ? 'endpoint.enable' : 'endpoint.disable')}
        </button>
        <button type="button" class="danger" onClick={remove}>
          {t('endpoint.delete')}
        </button>
        <button type="button" class="quiet" onClick={deliveries.reload}>
          {t('endpoint.refresh')}
        </button>
      </div>
      <FieldError id={`endpoint-${ep.id}`} text={failure} />
      {ep.previous_secret_expires_at && <p class="hint">{t('endpoint.previous', { time: dateTime(ep.previous_secret_expires_at, tz) })}</p>}
      <LoadError error={deliveries.error} />
      {deliveries.data !== null && (
        <ListTable
          caption={t('endpoint.recent')}
          showCaption
          columns={[
            { label: t('endpoint.event') },
            { label: t('endpoint.status') },
            { label: t('endpoint.answer') },
            { label: t('endpoint.attempts'), wide: true },
            { label: t('endpoint.created'), wide: true },
          ]}
          empty={deliveries.data.data.length === 0 ? t('endpoint.none') : null}
        >
          {deliveries.data.data.map((d) => (
            <tr key={d.id}>
              <td>
                <code>{d.event_type}</code>
              </td>
              <td>
                <span class={`badge status-${d.status}`}>{t(`delivery.${d.status}`)}</span>
                {d.next_attempt_at && <span class="hint"> {t('endpoint.next', { time: dateTime(d.next_attempt_at, tz) })}</span>}
              </td>
              <td>{d.last_response_status ?? (d.last_error ? <span title={d.last_error}>{d.last_error.slice(0, 60)}</span> : '—')}</td>
              <td class="wide-only">{d.attempt_count}</td>
              <td class="wide-only">{dateTime(d.created_at, tz)}</td>
              <td>
                <button type="button" onClick={() => retry(d)} aria-label={t('endpoint.retryLabel', { event: d.event_type })}>
                  {t('endpoint.retry')}
                </button>
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </div>
  );
}
