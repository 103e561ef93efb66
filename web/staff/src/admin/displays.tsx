// Display boards (manager): a board is a secret link to open on the shop's TV. Its QR code lets
// someone open it on the TV's browser without typing the link.
import { useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Display, List, Queue } from '../types.ts';
import { useNotify } from '../ui/notify.tsx';
import { problemText, useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { QrImage } from '../ui/qr.tsx';

const loadAll = () => Promise.all([call<List<Display>>('displays'), call<List<Queue>>('queues')]);

export function Displays() {
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadAll);
  const [draft, update, clear] = useDraft('display', { name: 'Counter TV', queues: [] as string[], voice: true });
  const [shown, setShown] = useState<Display | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const d = await call<Display>('createDisplay', { body: { name: draft.name.trim() || 'Display board', queues: draft.queues, voice: draft.voice } });
      clear();
      reload();
      show(d);
    } catch (err) {
      notify(problemText(err), 'error');
    }
  };
  const remove = async (d: Display) => {
    if (!confirm(`Delete the board “${d.name}”? Its link stops working at once.`)) return;
    try {
      await call('deleteDisplay', { params: { id: d.id } });
      notify(`Deleted “${d.name}”.`, 'success');
      reload();
    } catch (err) {
      notify(problemText(err), 'error');
    }
  };
  const show = (d: Display) => {
    setShown(d);
    requestAnimationFrame(() => dialog.current?.showModal());
  };
  const toggleQueue = (name: string, on: boolean) => update({ queues: on ? [...draft.queues, name] : draft.queues.filter((q) => q !== name) });

  return (
    <section class="admin" aria-labelledby="displays-title">
      <h1 id="displays-title">Display boards</h1>
      <p class="lead">A board shows “Preparing” and “Ready” numbers on a TV and, with voice on, calls numbers out. Anyone with its link sees the numbers: delete a board to retire its link.</p>
      <form class="inline-form" onSubmit={create} aria-label="Create a display board">
        <label><span>Name</span><input required maxLength={64} value={draft.name} onInput={(e) => update({ name: e.currentTarget.value })} /></label>
        {data !== null && data[1].data.length > 1 && (
          <fieldset class="checks"><legend>Queues <small>(none ticked: all)</small></legend>
            {data[1].data.map((q) => (
              <label key={q.name} class="check"><input type="checkbox" checked={draft.queues.includes(q.name)} onChange={(e) => toggleQueue(q.name, e.currentTarget.checked)} /> {q.name}</label>
            ))}
          </fieldset>
        )}
        <label class="check"><input type="checkbox" checked={draft.voice} onChange={(e) => update({ voice: e.currentTarget.checked })} /> Call numbers out loud</label>
        <button type="submit" class="primary">Create board</button>
      </form>
      {error && <p class="field-error" role="alert">{error}</p>}
      {data !== null && (
        <table class="list">
          <caption class="sr-only">Display boards</caption>
          <thead><tr><th scope="col">Board</th><th scope="col">Queues</th><th scope="col">Voice</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {data[0].data.length === 0 && <tr><td colSpan={4} class="empty">No board yet.</td></tr>}
            {data[0].data.map((d) => (
              <tr key={d.id}>
                <td>{d.name}</td>
                <td>{d.queues.length === 0 ? 'All' : d.queues.join(', ')}</td>
                <td>{d.voice ? 'On' : 'Off'}</td>
                <td class="row-actions">
                  <button type="button" onClick={() => show(d)} aria-label={`Link and QR code of ${d.name}`}>Link and QR</button>
                  <button type="button" class="danger" onClick={() => remove(d)} aria-label={`Delete ${d.name}`}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <dialog ref={dialog} class="qr-dialog" aria-labelledby="qr-title" onClose={() => setShown(null)}>
        {shown !== null && (
          <>
            <h2 id="qr-title">Open “{shown.name}” on the TV</h2>
            <p>Scan this with the TV's browser or camera, or type the link.</p>
            <QrImage text={shown.url} label={`QR code of the link of ${shown.name}`} />
            <p><a href={shown.url} target="_blank" rel="noopener noreferrer" class="board-link">{shown.url}</a></p>
            <div class="dialog-actions"><button type="button" onClick={() => dialog.current?.close()} autoFocus>Close</button></div>
          </>
        )}
      </dialog>
    </section>
  );
}
