// One's own account: change the password (every session of the user ends, this one included).
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useSession } from '../session.tsx';
import { problemText } from '../ui/load.ts';

export function Account() {
  const { session, signOut } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call('changePassword', { body: { current_password: current, new_password: next } });
      signOut();
    } catch (err) {
      setError(problemText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="admin" aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
      <p class="lead">Signed in as <strong>{session.user.email}</strong> ({session.user.role}) at {session.account.name}, plan <strong>{session.account.plan}</strong>.</p>
      <form class="settings" onSubmit={submit} aria-labelledby="pw-title">
        <h2 id="pw-title">Change your password</h2>
        <label for="pw-current">Current password</label>
        <input id="pw-current" type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
        <label for="pw-new">New password <small>(at least 10 characters)</small></label>
        <input id="pw-new" type="password" autocomplete="new-password" required minLength={10} value={next} onInput={(e) => setNext(e.currentTarget.value)} />
        {error && <p class="field-error" role="alert">{error}</p>}
        <p class="hint">Changing it signs you out everywhere; sign in again with the new password.</p>
        <div class="dialog-actions"><button type="submit" class="primary" disabled={busy}>Change password</button></div>
      </form>
    </section>
  );
}
