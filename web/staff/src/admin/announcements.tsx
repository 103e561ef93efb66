// Announcements (any staff): a short note on every waiting customer page and on the boards,
// e.g. "The kitchen is running 10 minutes late", until it expires or is taken down.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Announcement } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { clock } from '../ui/format.ts';
import { useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { FieldError, problemText, useFormErrors } from '../ui/field-errors.tsx';
import { Field, FormSubmit, LoadError } from './form-and-table.tsx';
import { t } from '../i18n/i18n.ts';

const loadAnnouncements = () => call('listAnnouncements');
const DURATIONS = [900, 1800, 3600, 7200, 14400, 43200];
const FIELDS = ['message', 'expires_in'] as const;

const duration = (s: number): string => (s < 3600 ? t('ann.minutes', { count: s / 60 }) : t('ann.hours', { count: s / 3600 }));

export function Announcements() {
  const { session } = useSession();
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadAnnouncements);
  const [draft, update, clear] = useDraft('announcement', { message: '', expires_in: 3600 });
  const [rowError, setRowError] = useState<{ id: string; text: string } | null>(null);
  const form = useFormErrors(FIELDS);

  const create = async (e: Event) => {
    e.preventDefault();
    form.reset();
    try {
      await call('createAnnouncement', { body: { message: draft.message.trim(), expires_in: draft.expires_in } });
      clear();
      notify(t('ann.showing'), 'success');
      reload();
    } catch (err) {
      form.fail(err);
    }
  };
  const remove = async (a: Announcement) => {
    setRowError(null);
    try {
      await call('deleteAnnouncement', { params: { id: a.id } });
      notify(t('ann.takenDown'), 'success');
      reload();
    } catch (err) {
      setRowError({ id: a.id, text: problemText(err) });
    }
  };

  return (
    <section class="admin" aria-labelledby="ann-title">
      <h1 id="ann-title">{t('ann.heading')}</h1>
      <p class="lead">{t('ann.lead')}</p>
      <form class="settings" onSubmit={create} aria-label={t('ann.newLabel')}>
        <Field
          id="ann-message"
          label={t('ann.message')}
          note={t('ann.left', { count: 280 - draft.message.length })}
          error={form.errors.fields.message}
          layout="settings"
        >
          <textarea
            id="ann-message"
            required
            maxLength={280}
            rows={2}
            value={draft.message}
            onInput={(e) => update({ message: e.currentTarget.value })}
            placeholder={t('ann.placeholder')}
            {...form.bind('message', 'ann-message')}
          />
        </Field>
        <Field id="ann-for" label={t('ann.for')} error={form.errors.fields.expires_in} layout="settings">
          <select
            id="ann-for"
            value={String(draft.expires_in)}
            onChange={(e) => update({ expires_in: Number(e.currentTarget.value) })}
            {...form.bind('expires_in', 'ann-for')}
          >
            {DURATIONS.map((s) => (
              <option key={s} value={String(s)}>
                {duration(s)}
              </option>
            ))}
          </select>
        </Field>
        <FormSubmit id="ann-form" label={t('ann.show')} error={form.errors.form} disabled={draft.message.trim() === ''} layout="settings" />
      </form>
      <LoadError error={error} />
      {data !== null && (
        <ul class="plain-list" aria-label={t('ann.now')}>
          {data.data.length === 0 && <li class="empty">{t('ann.none')}</li>}
          {data.data.map((a) => (
            <li key={a.id} class="announcement">
              <p>{a.message}</p>
              <p class="hint">{t('ann.until', { time: clock(a.expires_at, session.branch.timezone) })}</p>
              <button type="button" class="danger" onClick={() => remove(a)}>
                {t('ann.takeDown')}
              </button>
              <FieldError id={`ann-${a.id}`} text={rowError?.id === a.id ? rowError.text : null} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
