// Announcements (any staff): a short note on every waiting customer page and on the boards,
// e.g. "The kitchen is running 10 minutes late", until it expires or is taken down.
import { call } from '../api.ts';
import type { Announcement, List } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { clock } from '../ui/format.ts';
import { problemText, useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';

const loadAnnouncements = () => call<List<Announcement>>('announcements');
const DURATIONS: Array<[number, string]> = [[900, '15 minutes'], [1800, '30 minutes'], [3600, '1 hour'], [7200, '2 hours'], [14400, '4 hours'], [43200, '12 hours']];

export function Announcements() {
  const { session } = useSession();
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadAnnouncements);
  const [draft, update, clear] = useDraft('announcement', { message: '', expires_in: 3600 });

  const create = async (e: Event) => {
    e.preventDefault();
    try {
      await call('createAnnouncement', { body: { message: draft.message.trim(), expires_in: draft.expires_in } });
      clear();
      notify('Announcement showing.', 'success');
      reload();
    } catch (err) {
      notify(problemText(err), 'error');
    }
  };
  const remove = async (a: Announcement) => {
    try {
      await call('deleteAnnouncement', { params: { id: a.id } });
      notify('Announcement taken down.', 'success');
      reload();
    } catch (err) {
      notify(problemText(err), 'error');
    }
  };

  return (
    <section class="admin" aria-labelledby="ann-title">
      <h1 id="ann-title">Announcements</h1>
      <p class="lead">Shown on every waiting customer's page and on the display boards until it expires.</p>
      <form class="settings" onSubmit={create} aria-label="New announcement">
        <label for="ann-message">Message <small>({280 - draft.message.length} characters left)</small></label>
        <textarea id="ann-message" required maxLength={280} rows={2} value={draft.message} onInput={(e) => update({ message: e.currentTarget.value })}
          placeholder="The kitchen is running 10 minutes late" />
        <label for="ann-for">Show for</label>
        <select id="ann-for" value={String(draft.expires_in)} onChange={(e) => update({ expires_in: Number(e.currentTarget.value) })}>
          {DURATIONS.map(([s, label]) => <option key={s} value={String(s)}>{label}</option>)}
        </select>
        <div class="dialog-actions"><button type="submit" class="primary" disabled={draft.message.trim() === ''}>Show announcement</button></div>
      </form>
      {error && <p class="field-error" role="alert">{error}</p>}
      {data !== null && (
        <ul class="plain-list" aria-label="Showing now">
          {data.data.length === 0 && <li class="empty">Nothing is showing.</li>}
          {data.data.map((a) => (
            <li key={a.id} class="announcement">
              <p>{a.message}</p>
              <p class="hint">until {clock(a.expires_at, session.branch.timezone)}</p>
              <button type="button" class="danger" onClick={() => remove(a)}>Take down</button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
