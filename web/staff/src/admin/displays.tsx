// Display boards (manager): a board is a secret link to open on the shop's TV. Its QR code lets
// someone open it on the TV's browser without typing the link. Deleting asks first.
import { useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Display } from '../types.ts';
import { useNotify } from '../ui/notify.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { FieldError, useFormErrors } from '../ui/field-errors.tsx';
import { Field, FormSubmit, ListTable, LoadError } from './form-and-table.tsx';
import { QrImage } from '../ui/qr.tsx';
import { t } from '../i18n/i18n.ts';

const loadAll = () => Promise.all([call('listDisplays'), call('listQueues')]);
const FIELDS = ['name', 'queues', 'voice'] as const;

export function Displays() {
  const notify = useNotify();
  const confirm = useConfirm();
  const { data, error, reload } = useLoad(loadAll);
  const [draft, update, clear] = useDraft('display', { name: t('displays.defaultName'), queues: [] as string[], voice: true });
  const [shown, setShown] = useState<Display | null>(null);
  const form = useFormErrors(FIELDS);
  const dialog = useRef<HTMLDialogElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    form.reset();
    try {
      const d = await call('createDisplay', {
        body: { name: draft.name.trim() || t('displays.fallbackName'), queues: draft.queues, voice: draft.voice },
      });
      clear();
      reload();
      show(d);
    } catch (err) {
      form.fail(err);
    }
  };
  const remove = (d: Display) =>
    confirm({
      title: t('displays.deleteTitle', { name: d.name }),
      body: t('displays.deleteBody'),
      confirm: t('displays.delete'),
      danger: true,
      action: async () => {
        await call('deleteDisplay', { params: { id: d.id } });
        notify(t('displays.deleted', { name: d.name }), 'success');
        reload();
      },
    });
  const show = (d: Display) => {
    setShown(d);
    requestAnimationFrame(() => {
      dialog.current?.showModal();
      // Close has focus when the dialog opens, not the board link above it.
      closeButton.current?.focus();
    });
  };
  const toggleQueue = (name: string, on: boolean) =>
    update({ queues: on ? [...draft.queues, name] : draft.queues.filter((q) => q !== name) });

  return (
    <section class="admin" aria-labelledby="displays-title">
      <h1 id="displays-title">{t('displays.heading')}</h1>
      <p class="lead">{t('displays.lead')}</p>
      <form class="inline-form" onSubmit={create} aria-label={t('displays.createLabel')}>
        <Field id="display-name" label={t('displays.name')} error={form.errors.fields.name}>
          <input
            id="display-name"
            required
            maxLength={64}
            value={draft.name}
            onInput={(e) => update({ name: e.currentTarget.value })}
            {...form.bind('name', 'display-name')}
          />
        </Field>
        {data !== null && data[1].data.length > 1 && (
          <fieldset class="checks">
            <legend>
              {t('displays.queues')} <small>{t('displays.queuesNote')}</small>
            </legend>
            {data[1].data.map((q) => (
              <label key={q.name} class="check">
                <input
                  type="checkbox"
                  checked={draft.queues.includes(q.name)}
                  onChange={(e) => toggleQueue(q.name, e.currentTarget.checked)}
                />{' '}
                {q.name}
              </label>
            ))}
            <FieldError id="display-queues" text={form.errors.fields.queues} />
          </fieldset>
        )}
        <label class="check">
          <input type="checkbox" checked={draft.voice} onChange={(e) => update({ voice: e.currentTarget.checked })} /> {t('displays.voice')}
        </label>
        <FormSubmit id="display-form" label={t('displays.create')} error={form.errors.form} />
      </form>
      <LoadError error={error} />
      {data !== null && (
        <ListTable
          caption={t('displays.heading')}
          columns={[{ label: t('displays.board') }, { label: t('displays.queues') }, { label: t('displays.voiceCol') }]}
          empty={data[0].data.length === 0 ? t('displays.none') : null}
        >
          {data[0].data.map((d) => (
            <tr key={d.id}>
              <td class="wrap">{d.name}</td>
              <td>{d.queues.length === 0 ? t('displays.all') : d.queues.join(', ')}</td>
              <td>{t(d.voice ? 'displays.on' : 'displays.off')}</td>
              <td class="row-actions">
                <button type="button" onClick={() => show(d)} aria-label={t('displays.linkLabel', { name: d.name })}>
                  {t('displays.link')}
                </button>
                <button type="button" class="danger" onClick={() => remove(d)} aria-label={t('displays.deleteLabel', { name: d.name })}>
                  {t('displays.delete')}
                </button>
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      <dialog ref={dialog} class="qr-dialog" aria-labelledby="qr-title" onClose={() => setShown(null)}>
        {shown !== null && (
          <>
            <h2 id="qr-title">{t('displays.qrTitle', { name: shown.name })}</h2>
            <p>{t('displays.qrHint')}</p>
            <QrImage text={shown.url} label={t('displays.qrAlt', { name: shown.name })} />
            <p>
              <a href={shown.url} target="_blank" rel="noopener noreferrer" class="board-link">
                {shown.url}
              </a>
            </p>
            <div class="dialog-actions">
              <button type="button" ref={closeButton} onClick={() => dialog.current?.close()}>
                {t('dialog.close')}
              </button>
            </div>
          </>
        )}
      </dialog>
    </section>
  );
}
