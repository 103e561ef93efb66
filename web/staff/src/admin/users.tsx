// Staff users of the account (owner): invite with a one-time password shown once, change roles,
// reset a password, remove. The server keeps at least one owner and refuses self-removal.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { List, Role, User } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { dateTime } from '../ui/format.ts';
import { problemText, useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';

const loadUsers = () => call<List<User>>('users');
const ROLES: Array<[Role, string]> = [['staff', 'Staff: tickets'], ['manager', 'Manager: + queues, displays, settings'], ['owner', 'Owner: everything']];

export function Users() {
  const { session } = useSession();
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadUsers);
  const [draft, update, clear] = useDraft('invite', { email: '', role: 'staff' as Role });
  const [once, setOnce] = useState<User | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (fn: () => Promise<User | void>, done?: string) => {
    setBusy(true);
    try {
      const u = await fn();
      if (u && u.password) setOnce(u);
      if (done) notify(done, 'success');
      reload();
      return true;
    } catch (err) {
      notify(problemText(err), 'error');
      return false;
    } finally {
      setBusy(false);
    }
  };

  const invite = async (e: Event) => {
    e.preventDefault();
    if (await run(() => call<User>('inviteUser', { body: { email: draft.email.trim(), role: draft.role } }))) clear();
  };
  const setRole = (u: User, role: Role) => run(() => call<User>('updateUser', { params: { id: u.id }, body: { role } }), `${u.email} is now ${role}.`);
  const reset = (u: User) => confirm(`Give ${u.email} a new one-time password? Their sessions end.`) && run(() => call<User>('updateUser', { params: { id: u.id }, body: { reset_password: true } }));
  const remove = (u: User) => confirm(`Remove ${u.email}? They are signed out at once.`) && run(() => call<User>('removeUser', { params: { id: u.id } }).then(() => {}), `Removed ${u.email}.`);

  return (
    <section class="admin" aria-labelledby="users-title">
      <h1 id="users-title">Users</h1>
      <p class="lead">Everyone here can sign in to the staff page of every branch of <strong>{session.account.name}</strong>, with the rights of their role.</p>
      {once !== null && (
        <div class="secret-once" role="alert">
          <p><strong>One-time password for {once.email}.</strong> Hand it over now: it is shown only once. They can change it under Account.</p>
          <code class="secret" data-testid="one-time-password">{once.password}</code>
          <div class="dialog-actions"><button type="button" onClick={() => setOnce(null)}>Done</button></div>
        </div>
      )}
      <form class="inline-form" onSubmit={invite} aria-label="Invite a user">
        <label><span>Email</span>
          <input type="email" required maxLength={254} value={draft.email} onInput={(e) => update({ email: e.currentTarget.value })} />
        </label>
        <label><span>Role</span>
          <select value={draft.role} onChange={(e) => update({ role: e.currentTarget.value as Role })}>
            {ROLES.map(([r, label]) => <option key={r} value={r}>{label}</option>)}
          </select>
        </label>
        <button type="submit" class="primary" disabled={busy}>Invite</button>
      </form>
      {error && <p class="field-error" role="alert">{error}</p>}
      {data !== null && (
        <table class="list">
          <caption class="sr-only">Users</caption>
          <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {data.data.map((u) => (
              <tr key={u.id}>
                <td>{u.email}{u.id === session.user.id && <span class="you"> (you)</span>}</td>
                <td>
                  <select aria-label={`Role of ${u.email}`} value={u.role} disabled={busy} onChange={(e) => setRole(u, e.currentTarget.value as Role)}>
                    {ROLES.map(([r]) => <option key={r} value={r}>{r}</option>)}
                  </select>
                </td>
                <td>{dateTime(u.created_at, session.branch.timezone)}</td>
                <td class="row-actions">
                  <button type="button" class="quiet" disabled={busy} onClick={() => reset(u)} aria-label={`Reset the password of ${u.email}`}>Reset password</button>
                  {u.id !== session.user.id && <button type="button" class="danger" disabled={busy} onClick={() => remove(u)} aria-label={`Remove ${u.email}`}>Remove</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
