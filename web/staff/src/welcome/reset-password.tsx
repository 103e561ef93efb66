// The reset link's screen: a new password; the server ends every session of the user.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useFormErrors } from '../ui/field-errors.tsx';
import { FormSubmit, TextField } from '../admin/form-and-table.tsx';
import { t } from '../i18n/i18n.ts';

const FIELDS = ['password', 'token'] as const;

export function ResetPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const form = useFormErrors(FIELDS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    try {
      await call('resetPassword', { body: { token, password } });
      setPassword('');
      setDone(true);
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };

  if (done)
    return (
      <main class="sign-in">
        <section class="card" aria-labelledby="reset-title">
          <h1 id="reset-title">{t('reset.done')}</h1>
          <p role="status">{t('reset.doneText')}</p>
          <a href="#/">{t('signIn.submit')}</a>
        </section>
      </main>
    );

  return (
    <main class="sign-in">
      <form class="card" onSubmit={submit} aria-labelledby="reset-title" noValidate>
        <h1 id="reset-title">{t('reset.title')}</h1>
        <TextField
          form={form}
          name="password"
          id="rp-password"
          label={t('reset.new')}
          note={t('signUp.passwordNote')}
          type="password"
          autocomplete="new-password"
          minLength={10}
          value={password}
          onValue={setPassword}
        />
        <p class="hint">{t('reset.signsOut')}</p>
        {form.errors.fields.token !== undefined && (
          <p class="field-error" role="alert">
            {form.errors.fields.token} <a href="#/forgot">{t('reset.again')}</a>
          </p>
        )}
        <FormSubmit id="rp-form" label={t('reset.submit')} error={form.errors.form} disabled={busy} />
      </form>
    </main>
  );
}
