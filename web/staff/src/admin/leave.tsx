// The owner's way out (decision 0083): download the account's data as one JSON file, and delete
// the account, confirmed by typing its name and once more in a dialog. The deletion ends every
// session, this one included, so the page then shows sign-in.
import { useState } from 'preact/hooks';
import { call, url } from '../api.ts';
import { useSession } from '../session.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { useFormErrors } from '../ui/field-errors.tsx';
import { Field, FormSubmit } from './form-and-table.tsx';
import { language, t } from '../i18n/i18n.ts';

const FIELDS = ['name'] as const;

/** The export as a link: the browser downloads it with the session's cookie, streamed to disk. */
export function ExportLink() {
  return (
    <p>
      <a class="button" href={url('exportAccount')} download>
        {t('leave.export')}
      </a>{' '}
      <span class="hint small">{t('leave.exportNote')}</span>
    </p>
  );
}

export function Leave() {
  const { session, signOut } = useSession();
  const confirm = useConfirm();
  const [name, setName] = useState('');
  const form = useFormErrors(FIELDS);
  const account = session.account.name;

  const submit = (e: Event) => {
    e.preventDefault();
    form.reset();
    void confirm({
      title: t('leave.confirmTitle', { account }),
      body: t('leave.confirmBody'),
      confirm: t('leave.delete'),
      danger: true,
      action: async () => {
        try {
          await call('deleteAccount', { body: { name, language: language() } });
          signOut();
        } catch (err) {
          form.fail(err);
        }
      },
    });
  };

  return (
    <section aria-labelledby="leave-title" class="danger-zone">
      <h2 id="leave-title">{t('leave.heading')}</h2>
      <ExportLink />
      <form class="settings" onSubmit={submit} aria-labelledby="delete-title">
        <h3 id="delete-title">{t('leave.deleteHeading')}</h3>
        <p class="hint">{t('leave.deleteBody')}</p>
        <Field id="delete-name" label={t('leave.name', { account })} error={form.errors.fields.name} layout="settings">
          <input
            id="delete-name"
            type="text"
            autocomplete="off"
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...form.bind('name', 'delete-name')}
          />
        </Field>
        <FormSubmit
          id="delete-form"
          label={t('leave.delete')}
          error={form.errors.form}
          disabled={name.trim() !== account}
          layout="settings"
        />
      </form>
    </section>
  );
}
