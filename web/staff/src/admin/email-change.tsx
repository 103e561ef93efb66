// Changing one's own email (decision 0082): a link goes to the new address and the email changes
// only when it is followed; the current password is asked first.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useFormErrors } from '../ui/field-errors.tsx';
import { FormSubmit, TextField } from './form-and-table.tsx';
import { language, t } from '../i18n/i18n.ts';

const FIELDS = ['email', 'password'] as const;

export function EmailChange() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(FIELDS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    setSent(null);
    try {
      const change = await call('changeEmail', { body: { email: email.trim(), password, language: language() } });
      setSent(change.email);
      setEmail('');
    } catch (err) {
      form.fail(err);
    } finally {
      setPassword('');
      setBusy(false);
    }
  };

  return (
    <form class="settings" onSubmit={submit} aria-labelledby="email-title">
      <h2 id="email-title">{t('email.heading')}</h2>
      <TextField
        form={form}
        name="email"
        id="email-new"
        label={t('email.new')}
        layout="settings"
        type="email"
        autocomplete="email"
        maxLength={254}
        value={email}
        onValue={setEmail}
      />
      <TextField
        form={form}
        name="password"
        id="email-password"
        label={t('email.password')}
        layout="settings"
        type="password"
        autocomplete="current-password"
        value={password}
        onValue={setPassword}
      />
      {sent !== null && (
        <p class="notice notice-success" role="status">
          {t('email.sent', { email: sent })}
        </p>
      )}
      <FormSubmit id="email-form" label={t('email.submit')} error={form.errors.form} disabled={busy} layout="settings" />
    </form>
  );
}
