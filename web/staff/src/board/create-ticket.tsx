// New ticket: queue and optional order reference. The form is a draft (kept across an expired
// session) with its own Idempotency-Key, so a double submit or a retry after a lost answer
// creates one ticket, not two.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, newIdempotencyKey } from '../api.ts';
import type { Queue, Ticket } from '../types.ts';
import { useDraft } from '../ui/drafts.ts';
import { FieldError, useFormErrors } from '../ui/field-errors.tsx';
import { t } from '../i18n/i18n.ts';

type Props = { onCreated: (t: Ticket) => void; say: (text: string, kind?: 'success') => void };
const FIELDS = ['queue', 'external_ref'] as const;

export function CreateTicket({ onCreated, say }: Props) {
  const [queues, setQueues] = useState<Queue[]>([]);
  const [draft, update, clear] = useDraft('new-ticket', { queue: '', external_ref: '', key: '' });
  const [busy, setBusy] = useState(false);
  const { errors, fail, reset, bind } = useFormErrors(FIELDS);

  useEffect(() => {
    call('listQueues').then(
      (l) => setQueues(l.data),
      () => {},
    );
  }, []);
  useEffect(() => {
    if (draft.key === '') update({ key: newIdempotencyKey('staff-create') });
  }, [draft.key]);

  const queue =
    draft.queue !== '' && queues.some((q) => q.name === draft.queue) ? draft.queue : (queues.find((q) => q.is_default)?.name ?? '');

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    reset();
    const body: Record<string, string> = {};
    if (queue !== '') body.queue = queue;
    if (draft.external_ref.trim() !== '') body.external_ref = draft.external_ref.trim();
    try {
      const ticket = await call('createTicket', { body, idempotencyKey: draft.key });
      clear();
      update({ queue, key: newIdempotencyKey('staff-create') });
      say(t('create.done', { number: ticket.display_number }), 'success');
      onCreated(ticket);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return; // sign-in shows; the draft stays
      if (err instanceof ApiError && err.status < 500 && err.status !== 0) update({ key: newIdempotencyKey('staff-create') });
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="create-ticket" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">{t('create.title')}</h2>
      {queues.length > 1 && (
        <label>
          <span>{t('create.queue')}</span>
          <select value={queue} onChange={(e) => update({ queue: e.currentTarget.value })} {...bind('queue', 'new-queue')}>
            {queues.map((q) => (
              <option key={q.name} value={q.name}>
                {q.name}
              </option>
            ))}
          </select>
          <FieldError id="new-queue" text={errors.fields.queue} />
        </label>
      )}
      <label>
        <span>
          {t('create.ref')} <small>{t('form.optional')}</small>
        </span>
        <input
          id="new-ref"
          type="text"
          maxLength={64}
          autocomplete="off"
          value={draft.external_ref}
          onInput={(e) => update({ external_ref: e.currentTarget.value })}
          {...bind('external_ref', 'new-ref')}
        />
        <FieldError id="new-ref" text={errors.fields.external_ref} />
      </label>
      <button type="submit" class="primary" disabled={busy} aria-describedby={errors.form !== null ? 'create-error' : undefined}>
        {busy ? t('create.busy') : t('create.submit')}
      </button>
      <FieldError id="create" text={errors.form} />
    </form>
  );
}
