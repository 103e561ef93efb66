// New ticket: queue and optional order reference. The form is a draft (kept across an expired
// session) with its own Idempotency-Key, so a double submit or a retry after a lost answer
// creates one ticket, not two.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, newIdempotencyKey } from '../api.ts';
import type { List, Queue, Ticket } from '../types.ts';
import { useDraft } from '../ui/drafts.ts';

type Props = { onCreated: (t: Ticket) => void; say: (text: string, kind?: 'error' | 'success') => void };

export function CreateTicket({ onCreated, say }: Props) {
  const [queues, setQueues] = useState<Queue[]>([]);
  const [draft, update, clear] = useDraft('new-ticket', { queue: '', external_ref: '', key: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    call<List<Queue>>('queues').then((l) => setQueues(l.data), () => {});
  }, []);
  useEffect(() => {
    if (draft.key === '') update({ key: newIdempotencyKey('staff-create') });
  }, [draft.key]);

  const queue = draft.queue !== '' && queues.some((q) => q.name === draft.queue) ? draft.queue : (queues.find((q) => q.is_default)?.name ?? '');

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    const body: Record<string, string> = {};
    if (queue !== '') body.queue = queue;
    if (draft.external_ref.trim() !== '') body.external_ref = draft.external_ref.trim();
    try {
      const t = await call<Ticket>('createTicket', { body, idempotencyKey: draft.key });
      clear();
      update({ queue, key: newIdempotencyKey('staff-create') });
      say(`Created ${t.display_number}.`, 'success');
      onCreated(t);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return; // sign-in shows; the draft stays
      if (err instanceof ApiError && err.status < 500 && err.status !== 0) update({ key: newIdempotencyKey('staff-create') });
      setError(err instanceof ApiError ? err.problem.detail : 'The ticket could not be created.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="create-ticket" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">New ticket</h2>
      {queues.length > 1 && (
        <label>
          <span>Queue</span>
          <select value={queue} onChange={(e) => update({ queue: e.currentTarget.value })}>
            {queues.map((q) => <option key={q.name} value={q.name}>{q.name}</option>)}
          </select>
        </label>
      )}
      <label>
        <span>Order reference <small>(optional)</small></span>
        <input id="new-ref" type="text" maxLength={64} autocomplete="off" value={draft.external_ref} onInput={(e) => update({ external_ref: e.currentTarget.value })}
          aria-invalid={error ? 'true' : undefined} aria-describedby={error ? 'create-error' : undefined} />
      </label>
      <button type="submit" class="primary" disabled={busy}>{busy ? 'Creating…' : 'Create and print'}</button>
      {error && <p id="create-error" class="field-error" role="alert">{error}</p>}
    </form>
  );
}
