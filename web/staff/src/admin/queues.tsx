// Queues of the branch (manager): each has its own numbering (A-1, B-1, …). A queue with open
// tickets cannot be renamed or deleted; the server says so and the message is shown as is.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { List, Queue } from '../types.ts';
import { useNotify } from '../ui/notify.tsx';
import { problemText, useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';

const loadQueues = () => call<List<Queue>>('queues');

export function Queues() {
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadQueues);
  const [draft, update, clear] = useDraft('queue', { name: '' });
  const [renaming, setRenaming] = useState<{ from: string; to: string } | null>(null);

  const run = async (fn: () => Promise<unknown>, done: string) => {
    try {
      await fn();
      notify(done, 'success');
      reload();
      return true;
    } catch (err) {
      notify(problemText(err), 'error');
      return false;
    }
  };

  const create = async (e: Event) => {
    e.preventDefault();
    const name = draft.name.trim();
    if (await run(() => call('createQueue', { body: { name } }), `Queue ${name} created.`)) clear();
  };
  const rename = async (e: Event) => {
    e.preventDefault();
    if (renaming === null) return;
    if (await run(() => call('updateQueue', { params: { name: renaming.from }, body: { name: renaming.to.trim() } }), `Queue ${renaming.from} is now ${renaming.to.trim()}.`)) setRenaming(null);
  };

  return (
    <section class="admin" aria-labelledby="queues-title">
      <h1 id="queues-title">Queues</h1>
      <p class="lead">Each queue numbers its tickets on its own (A-1, B-1, …), from 1 every business day.</p>
      <form class="inline-form" onSubmit={create} aria-label="Create a queue">
        <label><span>New queue name</span>
          <input type="text" required pattern="[A-Za-z0-9_]{1,16}" maxLength={16} value={draft.name} onInput={(e) => update({ name: e.currentTarget.value })}
            title="1 to 16 letters, digits or _" />
        </label>
        <button type="submit" class="primary">Create queue</button>
      </form>
      {error && <p class="field-error" role="alert">{error}</p>}
      {data !== null && (
        <table class="list">
          <caption class="sr-only">Queues</caption>
          <thead><tr><th scope="col">Queue</th><th scope="col">Open tickets</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {data.data.map((q) => (
              <tr key={q.name}>
                <td>
                  {renaming?.from === q.name ? (
                    <form onSubmit={rename} class="row-form">
                      <input aria-label={`New name for ${q.name}`} value={renaming.to} pattern="[A-Za-z0-9_]{1,16}" required autoFocus
                        onInput={(e) => setRenaming({ from: q.name, to: e.currentTarget.value })} />
                      <button type="submit">Save</button>
                      <button type="button" class="quiet" onClick={() => setRenaming(null)}>Cancel</button>
                    </form>
                  ) : <strong>{q.name}</strong>}
                  {q.is_default && <span class="badge">default</span>}
                </td>
                <td>{q.open_tickets}</td>
                <td class="row-actions">
                  {!q.is_default && <button type="button" class="quiet" onClick={() => run(() => call('updateQueue', { params: { name: q.name }, body: { is_default: true } }), `${q.name} is now the default queue.`)}>Make default</button>}
                  <button type="button" class="quiet" onClick={() => setRenaming({ from: q.name, to: q.name })} aria-label={`Rename ${q.name}`}>Rename</button>
                  {!q.is_default && <button type="button" class="danger" onClick={() => confirm(`Delete queue ${q.name}?`) && run(() => call('deleteQueue', { params: { name: q.name } }), `Queue ${q.name} deleted.`)} aria-label={`Delete ${q.name}`}>Delete</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
