// Queues of the branch (manager): each has its own numbering (A-1, B-1, …). A queue with open
// tickets cannot be renamed or deleted; the server says so, next to the queue concerned.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Queue } from '../types.ts';
import { useNotify } from '../ui/notify.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { FieldError, problemText, useFormErrors } from '../ui/field-errors.tsx';
import { Field, FormSubmit, ListTable, LoadError } from './form-and-table.tsx';
import { t } from '../i18n/i18n.ts';
import { useSession } from '../session.tsx';

const loadQueues = () => call('listQueues');
const FIELDS = ['name'] as const;

export function Queues() {
  // The default queue is a branch setting: live mode only (see branch-settings.tsx).
  const { mode } = useSession();
  const notify = useNotify();
  const confirm = useConfirm();
  const { data, error, reload } = useLoad(loadQueues);
  const [draft, update, clear] = useDraft('queue', { name: '' });
  const [renaming, setRenaming] = useState<{ from: string; to: string } | null>(null);
  const [rowError, setRowError] = useState<{ name: string; text: string } | null>(null);
  const form = useFormErrors(FIELDS);
  const renameInput = useRef<HTMLInputElement>(null);
  const renamingRow = renaming?.from ?? null;
  useEffect(() => {
    // The new name's field takes focus when it opens only if nothing else has focus (so not from
    // the Rename button that opened it), as the autofocus attribute did.
    const focused = document.activeElement;
    if (renamingRow !== null && (focused === null || focused === document.body)) renameInput.current?.focus();
  }, [renamingRow]);

  const create = async (e: Event) => {
    e.preventDefault();
    const name = draft.name.trim();
    form.reset();
    try {
      await call('createQueue', { body: { name } });
      notify(t('queues.created', { name }), 'success');
      clear();
      reload();
    } catch (err) {
      form.fail(err);
    }
  };
  const rowAction = async (name: string, fn: () => Promise<unknown>, done: string) => {
    setRowError(null);
    try {
      await fn();
      notify(done, 'success');
      reload();
      return true;
    } catch (err) {
      setRowError({ name, text: problemText(err) });
      return false;
    }
  };
  const rename = async (e: Event) => {
    e.preventDefault();
    if (renaming === null) return;
    const to = renaming.to.trim();
    if (
      await rowAction(
        renaming.from,
        () => call('updateQueue', { params: { name: renaming.from }, body: { name: to } }),
        t('queues.renamed', { from: renaming.from, to }),
      )
    )
      setRenaming(null);
  };
  const remove = (q: Queue) =>
    confirm({
      title: t('queues.deleteTitle', { name: q.name }),
      body: t('queues.deleteBody'),
      confirm: t('queues.delete'),
      danger: true,
      action: async () => {
        await call('deleteQueue', { params: { name: q.name } });
        notify(t('queues.deleted', { name: q.name }), 'success');
        reload();
      },
    });

  return (
    <section class="admin" aria-labelledby="queues-title">
      <h1 id="queues-title">{t('queues.heading')}</h1>
      <p class="lead">{t('queues.lead')}</p>
      <form class="inline-form" onSubmit={create} aria-label={t('queues.createLabel')}>
        <Field id="queue-name" label={t('queues.newName')} error={form.errors.fields.name}>
          <input
            id="queue-name"
            type="text"
            required
            pattern="[A-Za-z0-9_]{1,16}"
            maxLength={16}
            value={draft.name}
            onInput={(e) => update({ name: e.currentTarget.value })}
            title={t('queues.pattern')}
            {...form.bind('name', 'queue-name')}
          />
        </Field>
        <FormSubmit id="queue-form" label={t('queues.create')} error={form.errors.form} />
      </form>
      <LoadError error={error} />
      {data !== null && (
        <ListTable caption={t('queues.heading')} columns={[{ label: t('queues.queue') }, { label: t('queues.open') }]} empty={null}>
          {data.data.map((q) => {
            const note = rowError?.name === q.name ? rowError.text : null;
            return (
              <tr key={q.name}>
                <td>
                  {renaming?.from === q.name ? (
                    <form onSubmit={rename} class="row-form">
                      <input
                        id={`rename-${q.name}`}
                        ref={renameInput}
                        aria-label={t('queues.newNameFor', { name: q.name })}
                        value={renaming.to}
                        pattern="[A-Za-z0-9_]{1,16}"
                        required
                        aria-invalid={note !== null ? 'true' : undefined}
                        aria-describedby={note !== null ? `queue-${q.name}-error` : undefined}
                        onInput={(e) => setRenaming({ from: q.name, to: e.currentTarget.value })}
                      />
                      <button type="submit">{t('queues.save')}</button>
                      <button
                        type="button"
                        class="quiet"
                        onClick={() => {
                          setRenaming(null);
                          setRowError(null);
                        }}
                      >
                        {t('dialog.cancel')}
                      </button>
                    </form>
                  ) : (
                    <strong>{q.name}</strong>
                  )}
                  {q.is_default && <span class="badge">{t('queues.default')}</span>}
                  <FieldError id={`queue-${q.name}`} text={note} />
                </td>
                <td>{q.open_tickets}</td>
                <td class="row-actions">
                  {!q.is_default && mode === 'live' && (
                    <button
                      type="button"
                      class="quiet"
                      onClick={() =>
                        rowAction(
                          q.name,
                          () => call('updateQueue', { params: { name: q.name }, body: { is_default: true } }),
                          t('queues.madeDefault', { name: q.name }),
                        )
                      }
                    >
                      {t('queues.makeDefault')}
                    </button>
                  )}
                  <button
                    type="button"
                    class="quiet"
                    onClick={() => {
                      setRowError(null);
                      setRenaming({ from: q.name, to: q.name });
                    }}
                    aria-label={t('queues.renameLabel', { name: q.name })}
                  >
                    {t('queues.rename')}
                  </button>
                  {!q.is_default && (
                    <button type="button" class="danger" onClick={() => remove(q)} aria-label={t('queues.deleteLabel', { name: q.name })}>
                      {t('queues.delete')}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </ListTable>
      )}
    </section>
  );
}
