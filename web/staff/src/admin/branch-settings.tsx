// Branch settings (manager): what PATCH /v1/branch accepts. Only changed fields are sent; the
// edits are a draft until saved, so an expired session loses nothing.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Branch, List, Queue } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { problemText, useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';

const LANGUAGES: Array<[string, string]> = [['en', 'English'], ['fr', 'Français'], ['es', 'Español'], ['de', 'Deutsch']];
const loadAll = () => Promise.all([call<Branch>('branch'), call<List<Queue>>('queues')]);
const zones = (): string[] => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
};

type Flat = {
  name: string; timezone: string; default_queue: string; expiry_hours: number; reminder_delay_seconds: number; reminder_count: number;
  voice_enabled: boolean; voice_language: string; page_language: string; msg_waiting: string; msg_ready: string; msg_closed: string; sms_enabled: boolean;
};

const flatten = (b: Branch): Flat => ({
  name: b.name, timezone: b.timezone, default_queue: b.default_queue, expiry_hours: b.expiry_hours, reminder_delay_seconds: b.reminder_delay_seconds,
  reminder_count: b.reminder_count, voice_enabled: b.voice.enabled, voice_language: b.voice.language, page_language: b.customer_page.language,
  msg_waiting: b.customer_page.messages.waiting ?? '', msg_ready: b.customer_page.messages.ready ?? '', msg_closed: b.customer_page.messages.closed ?? '',
  sms_enabled: b.sms_enabled,
});

function patchOf(edits: Partial<Flat>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const voice: Record<string, unknown> = {};
  const page: Record<string, unknown> = {};
  const messages: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(edits)) {
    if (k === 'voice_enabled') voice.enabled = v;
    else if (k === 'voice_language') voice.language = v;
    else if (k === 'page_language') page.language = v;
    else if (k.startsWith('msg_')) messages[k.slice(4)] = String(v).trim() === '' ? null : String(v).trim();
    else body[k] = v;
  }
  if (Object.keys(messages).length > 0) page.messages = messages;
  if (Object.keys(voice).length > 0) body.voice = voice;
  if (Object.keys(page).length > 0) body.customer_page = page;
  return body;
}

export function BranchSettings() {
  const { session } = useSession();
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadAll);
  const [edits, update, clear] = useDraft<Partial<Flat>>(`settings:${session.branch.id}`, {});
  const [busy, setBusy] = useState(false);
  if (error) return <p class="field-error" role="alert">{error}</p>;
  if (data === null) return <p class="empty">Loading settings…</p>;
  const [branch, queues] = data;
  const f: Flat = { ...flatten(branch), ...edits };
  const dirty = Object.keys(edits).length > 0;

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await call<Branch>('updateBranch', { body: patchOf(edits) });
      clear();
      reload();
      notify('Settings saved.', 'success');
    } catch (err) {
      notify(problemText(err), 'error');
    } finally {
      setBusy(false);
    }
  };
  const num = (k: keyof Flat) => (e: Event) => update({ [k]: Number((e.currentTarget as HTMLInputElement).value) } as Partial<Flat>);
  const text = (k: keyof Flat) => (e: Event) => update({ [k]: (e.currentTarget as HTMLInputElement).value } as Partial<Flat>);
  const check = (k: keyof Flat) => (e: Event) => update({ [k]: (e.currentTarget as HTMLInputElement).checked } as Partial<Flat>);
  const langs = (id: string, value: string, k: keyof Flat) => (
    <select id={id} value={value} onChange={text(k)}>{LANGUAGES.map(([c, l]) => <option key={c} value={c}>{l}</option>)}</select>
  );

  return (
    <section class="admin" aria-labelledby="settings-title">
      <h1 id="settings-title">Branch settings</h1>
      {dirty && <p class="notice notice-info" role="status">You have unsaved changes.</p>}
      <form class="settings" onSubmit={save}>
        <fieldset><legend>Branch</legend>
          <label for="s-name">Name</label><input id="s-name" required maxLength={100} value={f.name} onInput={text('name')} />
          <label for="s-tz">Time zone <small>(business days start at local midnight)</small></label>
          <select id="s-tz" value={f.timezone} onChange={text('timezone')}>
            {(zones().includes(f.timezone) ? zones() : [f.timezone, ...zones()]).map((z) => <option key={z} value={z}>{z}</option>)}
          </select>
          <label for="s-queue">Default queue</label>
          <select id="s-queue" value={f.default_queue} onChange={text('default_queue')}>{queues.data.map((q) => <option key={q.name} value={q.name}>{q.name}</option>)}</select>
        </fieldset>
        <fieldset><legend>Tickets and reminders</legend>
          <label for="s-exp">Open tickets expire after (hours)</label>
          <input id="s-exp" type="number" min={0.25} max={72} step={0.25} required value={f.expiry_hours} onInput={num('expiry_hours')} />
          <label for="s-rd">Ring again when not acknowledged after (seconds)</label>
          <input id="s-rd" type="number" min={30} max={3600} step={1} required value={f.reminder_delay_seconds} onInput={num('reminder_delay_seconds')} />
          <label for="s-rc">Automatic reminders (0 to 5)</label>
          <input id="s-rc" type="number" min={0} max={5} step={1} required value={f.reminder_count} onInput={num('reminder_count')} />
        </fieldset>
        <fieldset><legend>Voice on display boards</legend>
          <label class="check"><input type="checkbox" checked={f.voice_enabled} onChange={check('voice_enabled')} /> Call numbers out loud</label>
          <label for="s-vl">Voice language</label>{langs('s-vl', f.voice_language, 'voice_language')}
        </fieldset>
        <fieldset><legend>Customer page</legend>
          <label for="s-pl">Default language <small>(the customer's browser language wins when supported)</small></label>{langs('s-pl', f.page_language, 'page_language')}
          <label for="s-mw">Message while waiting</label><textarea id="s-mw" maxLength={280} rows={2} value={f.msg_waiting} onInput={text('msg_waiting')} />
          <label for="s-mr">Message when ready</label><textarea id="s-mr" maxLength={280} rows={2} value={f.msg_ready} onInput={text('msg_ready')} />
          <label for="s-mc">Message when collected</label><textarea id="s-mc" maxLength={280} rows={2} value={f.msg_closed} onInput={text('msg_closed')} />
          <label class="check"><input type="checkbox" checked={f.sms_enabled} onChange={check('sms_enabled')} /> SMS fallback when no push or open page reached the customer (business plan)</label>
        </fieldset>
        <div class="dialog-actions">
          <button type="submit" class="primary" disabled={busy || !dirty}>Save settings</button>
          <button type="button" disabled={!dirty} onClick={clear}>Discard changes</button>
        </div>
      </form>
    </section>
  );
}
