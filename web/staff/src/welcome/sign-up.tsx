// Sign-up: email, password, the shop's name and time zone. The answer is the same for a known
// email (a mail tells its owner), so the screen always ends on "check your inbox", and says so when
// this readybell has no mail server and the link went to its log.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useFormErrors } from '../ui/field-errors.tsx';
import { TimeZonePicker } from '../ui/timezone-picker.tsx';
import { FormSubmit, TextField } from '../admin/form-and-table.tsx';
import { currentLanguage, t } from '../i18n/i18n.ts';
import type { SignupSettings } from './front-door.tsx';
import { SentNote } from './sent-note.tsx';

const FIELDS = ['email', 'password', 'shop_name', 'timezone'] as const;

const browserZone = (): string => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
};

export function SignUp({ settings }: { settings: SignupSettings | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [shop, setShop] = useState('');
  const [zone, setZone] = useState(browserZone);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<{ email: string; delivery: 'smtp' | 'log' } | null>(null);
  const form = useFormErrors(FIELDS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    try {
      const r = await call('signUp', { body: { email, password, shop_name: shop, timezone: zone, language: currentLanguage() } });
      setPassword('');
      setSent({ email: r.email, delivery: r.email_delivery });
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };

  if (settings !== null && !settings.open)
    return (
      <main class="sign-in">
        <section class="card" aria-labelledby="signup-title">
          <h1 id="signup-title">{t('signUp.title')}</h1>
          <p>{t('signUp.closed')}</p>
          <a href="#/">{t('door.backToSignIn')}</a>
        </section>
      </main>
    );

  if (sent !== null)
    return (
      <main class="sign-in">
        <section class="card" aria-labelledby="signup-title">
          <h1 id="signup-title">{t('signUp.checkInbox')}</h1>
          <p role="status">{t('signUp.sent', { email: sent.email })}</p>
          <SentNote delivery={sent.delivery} />
          <a href="#/">{t('door.backToSignIn')}</a>
        </section>
      </main>
    );

  const plan = settings === null ? null : settings.trial_days > 0 ? t('signUp.trial', { days: settings.trial_days }) : t('signUp.free');
  return (
    <main class="sign-in">
      <form class="card" onSubmit={submit} aria-labelledby="signup-title" noValidate>
        <h1 id="signup-title">
          <span class="brand">readybell</span> {t('signUp.title')}
        </h1>
        {plan !== null && <p class="hint">{plan}</p>}
        <TextField
          form={form}
          name="email"
          id="su-email"
          label={t('signIn.email')}
          type="email"
          autocomplete="email"
          value={email}
          onValue={setEmail}
        />
        <TextField
          form={form}
          name="password"
          id="su-password"
          label={t('signIn.password')}
          note={t('signUp.passwordNote')}
          type="password"
          autocomplete="new-password"
          minLength={10}
          value={password}
          onValue={setPassword}
        />
        <TextField
          form={form}
          name="shop_name"
          id="su-shop"
          label={t('signUp.shop')}
          type="text"
          autocomplete="organization"
          maxLength={100}
          value={shop}
          onValue={setShop}
        />
        <label for="su-zone">{t('signUp.timezone')}</label>
        <TimeZonePicker
          id="su-zone"
          value={zone}
          onChange={setZone}
          invalid={form.errors.fields.timezone !== undefined}
          describedBy={form.errors.fields.timezone !== undefined ? 'su-zone-error' : undefined}
        />
        {form.errors.fields.timezone !== undefined && (
          <p id="su-zone-error" class="field-error" role="alert">
            {form.errors.fields.timezone}
          </p>
        )}
        <FormSubmit id="su-form" label={busy ? t('signUp.busy') : t('signUp.submit')} error={form.errors.form} disabled={busy} />
        <p class="door-links">
          <a href="#/">{t('signUp.haveAccount')}</a>
        </p>
      </form>
    </main>
  );
}
