// One's own account: change the password (every session of the user ends, this one included) or
// the email (confirmed on the new address); for owners, the export and deletion of the account.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useSession } from '../session.tsx';
import { useFormErrors } from '../ui/field-errors.tsx';
import { FormSubmit, TextField } from './form-and-table.tsx';
import { t } from '../i18n/i18n.ts';
import { EmailChange } from './email-change.tsx';
import { Leave } from './leave.tsx';

const FIELDS = ['current_password', 'new_password'] as const;

export function Account() {
  const { session, signOut } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(FIELDS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    try {
      await call('changePassword', { body: { current_password: current, new_password: next } });
      signOut();
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="admin" aria-labelledby="account-title">
      <h1 id="account-title">{t('account.heading')}</h1>
      <p class="lead">
        {t('account.lead', {
          email: session.user.email,
          role: t(`role.${session.user.role}`),
          account: session.account.name,
          plan: session.account.plan,
        })}
      </p>
      <form class="settings" onSubmit={submit} aria-labelledby="pw-title">
        <h2 id="pw-title">{t('account.change')}</h2>
        <TextField
          form={form}
          name="current_password"
          id="pw-current"
          label={t('account.current')}
          layout="settings"
          type="password"
          autocomplete="current-password"
          value={current}
          onValue={setCurrent}
        />
        <TextField
          form={form}
          name="new_password"
          id="pw-new"
          label={t('account.new')}
          note={t('account.newNote')}
          layout="settings"
          type="password"
          autocomplete="new-password"
          minLength={10}
          value={next}
          onValue={setNext}
        />
        <p class="hint">{t('account.signsOut')}</p>
        <FormSubmit id="pw-form" label={t('account.submit')} error={form.errors.form} disabled={busy} layout="settings" />
      </form>
      <EmailChange />
      {session.user.role === 'owner' && <Leave />}
    </section>
  );
}
