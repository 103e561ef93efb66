// The Square connection's choices (owner): which of the merchant's Square locations sends its
// orders here, the queue their tickets go in, and whether readybell's Ready marks the Square order
// prepared. Only ACTIVE locations can be chosen (the API refuses the others); an inactive one is
// listed, greyed, so the owner who looks for it learns why it cannot be picked.
import { useCallback, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { SquareConnection } from '../types.ts';
import { useLoad } from '../ui/load.ts';
import { FieldError, useFormErrors } from '../ui/field-errors.tsx';
import { t } from '../i18n/i18n.ts';
import { Field, FormSubmit, LoadError } from './form-and-table.tsx';

const FIELDS = ['location_id', 'queue', 'mark_prepared'] as const;

type Props = {
  connection: SquareConnection;
  submitLabel: string;
  onSaved: (c: SquareConnection) => void;
  onCancel?: () => void;
};

export function SquareLocationForm({ connection: c, submitLabel, onSaved, onCancel }: Props) {
  const load = useCallback(() => Promise.all([call('listSquareLocations'), call('listQueues')]), []);
  const { data, error } = useLoad(load);
  const [locationId, setLocationId] = useState<string | null>(c.location?.id ?? null);
  const [queue, setQueue] = useState<string | null>(c.queue);
  const [markPrepared, setMarkPrepared] = useState(c.mark_prepared);
  const [busy, setBusy] = useState(false);
  const [missing, setMissing] = useState(false);
  const form = useFormErrors(FIELDS);

  if (error !== null) return <LoadError error={error} />;
  if (data === null) return <p class="empty">{t('square.loadingLocations')}</p>;
  const [locations, queues] = data;
  const active = locations.data.filter((l) => l.status === 'ACTIVE');
  // Exactly one place to send orders: chosen for the owner, who still confirms it.
  const chosen = locationId ?? (active.length === 1 ? active[0]!.id : null);
  // Until the owner picks one, orders go where tickets without a queue go: the branch's default.
  const queueName = queue ?? queues.data.find((q) => q.is_default)?.name ?? queues.data[0]?.name ?? '';

  const save = async (e: Event) => {
    e.preventDefault();
    form.reset();
    setMissing(chosen === null);
    if (chosen === null) return;
    setBusy(true);
    try {
      onSaved(await call('updateSquareConnection', { body: { location_id: chosen, queue: queueName, mark_prepared: markPrepared } }));
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };

  const locationError = form.errors.fields.location_id ?? (missing && chosen === null ? t('square.pickLocation') : undefined);
  return (
    <form class="settings square-form" onSubmit={save} noValidate>
      <fieldset aria-describedby={locationError !== undefined ? 'sq-location-error' : undefined}>
        <legend>{t('square.location')}</legend>
        {locations.data.length === 0 && <p class="hint">{t('square.noLocations')}</p>}
        <ul class="square-locations">
          {locations.data.map((l) => {
            const inactive = l.status !== 'ACTIVE';
            return (
              <li key={l.id}>
                <label class="check">
                  <input
                    type="radio"
                    name="square-location"
                    value={l.id}
                    checked={chosen === l.id}
                    disabled={inactive}
                    onChange={() => setLocationId(l.id)}
                  />
                  <span>
                    <span>
                      <strong>{l.name}</strong>
                      {inactive && <span class="badge">{t('square.inactive')}</span>}
                    </span>
                    {l.address !== null && <span class="hint square-address">{l.address}</span>}
                  </span>
                </label>
              </li>
            );
          })}
        </ul>
        <FieldError id="sq-location" text={locationError} />
      </fieldset>
      <fieldset>
        <legend>{t('square.orders')}</legend>
        <Field id="sq-queue" label={t('square.queue')} note={t('square.queueNote')} error={form.errors.fields.queue} layout="settings">
          <select id="sq-queue" value={queueName} onChange={(e) => setQueue(e.currentTarget.value)} {...form.bind('queue', 'sq-queue')}>
            {queues.data.map((q) => (
              <option key={q.name} value={q.name}>
                {q.name}
              </option>
            ))}
          </select>
        </Field>
        <label class="check">
          <input type="checkbox" checked={markPrepared} onChange={(e) => setMarkPrepared(e.currentTarget.checked)} />
          {t('square.markPrepared')}
        </label>
        <p class="hint">{t('square.markPreparedNote')}</p>
      </fieldset>
      <FormSubmit
        id="sq-save"
        label={busy ? t('dialog.working') : submitLabel}
        error={form.errors.form}
        disabled={busy || active.length === 0}
        layout="settings"
      />
      {onCancel !== undefined && (
        <button type="button" class="quiet square-cancel" onClick={onCancel}>
          {t('dialog.cancel')}
        </button>
      )}
    </form>
  );
}
