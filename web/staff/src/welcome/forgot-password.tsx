// "Forgot password": an email; the answer is the same whether or not it has an account.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useFormErrors } from '../ui/field-errors.tsx';
import { FormSubmit, TextField } from '../admin/form-and-table.tsx';
import { currentLanguage, t } from '../i18n/i18n.ts';
import { SentNote } from './sent-note.tsx';

const FIELDS = ['email'] as const;

export function ForgotPassword() {
  const [email, setEmail] = useState(() => localStorage.getItem('readybell:email') ?? '');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<{ email: string; delivery: 'smtp' | 'log' } | null>(null);
  const form = useFormErrors(FIELDS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    try {
      const r = await call('requestPasswordReset', { body: { email, language: currentLanguage() } });
      setSent({ email: r.email, delivery: r.email_delivery });
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      {sent !== null ? (
        <section class="card" aria-labelledby="forgot-title">
          <h1 id="forgot-title">{t('signUp.checkInbox')}</h1>
          <p role="status">{t('forgot.sent', { email: sent.email })}</p>
          <SentNote delivery={sent.delivery} />
          <a href="#/">{t('door.backToSignIn')}</a>
        </section>
      ) : (
        <form class="card" onSubmit={submit} aria-labelledby="forgot-title">
          <h1 id="forgot-title">{t('forgot.title')}</h1>
          <p>{t('forgot.lead')}</p>
          <TextField
            form={form}
            name="email"
            id="fp-email"
            label={t('signIn.email')}
            type="email"
            autocomplete="username"
            value={email}
            onValue={setEmail}
          />
          <FormSubmit id="fp-form" label={t('forgot.submit')} error={form.errors.form} disabled={busy} />
          <p class="door-links">
            <a href="#/">{t('door.backToSignIn')}</a>
          </p>
        </form>
      )}
    </main>
  );
}
