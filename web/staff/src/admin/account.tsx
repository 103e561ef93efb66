// One's own account: change the password (every session of the user ends, this one included).
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useSession } from '../session.tsx';
import { FieldError, useFormErrors } from '../ui/field-errors.tsx';
import { t } from '../i18n/i18n.ts';

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
        <label for="pw-current">{t('account.current')}</label>
        <input
          id="pw-current"
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
          {...form.bind('current_password', 'pw-current')}
        />
        <FieldError id="pw-current" text={form.errors.fields.current_password} />
        <label for="pw-new">
          {t('account.new')} <small>{t('account.newNote')}</small>
        </label>
        <input
          id="pw-new"
          type="password"
          autocomplete="new-password"
          required
          minLength={10}
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
          {...form.bind('new_password', 'pw-new')}
        />
        <FieldError id="pw-new" text={form.errors.fields.new_password} />
        <p class="hint">{t('account.signsOut')}</p>
        <div class="dialog-actions">
          <button type="submit" class="primary" disabled={busy} aria-describedby={form.errors.form !== null ? 'pw-form-error' : undefined}>
            {t('account.submit')}
          </button>
        </div>
        <FieldError id="pw-form" text={form.errors.form} />
      </form>
    </section>
  );
}
