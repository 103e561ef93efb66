// Staff users of the account (owner): invite by email (the invitee chooses their own password
// with the mailed link; open invitations are listed to resend or revoke), change roles, reset a
// password (a one-time password shown once), remove. The server keeps at least one owner (409 last-owner) and refuses
// self-removal; the page says so before anyone tries, and shows the server's refusal at the
// control that caused it. Stepping down from owner asks first and reloads the session.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Role, User } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { FieldError, problemText, useFormErrors } from '../ui/field-errors.tsx';
import { Field, FormSubmit, ListTable, LoadError } from './form-and-table.tsx';
import { SecretOnce } from './secret-once.tsx';
import { language, t } from '../i18n/i18n.ts';
import { Invitations } from './invitations.tsx';

const loadUsers = () => call('listUsers');
const loadInvitations = () => call('listInvitations');
const ROLES: Role[] = ['staff', 'manager', 'owner'];
const FIELDS = ['email', 'role'] as const;

export function Users() {
  const { session, setSession } = useSession();
  const notify = useNotify();
  const confirm = useConfirm();
  const { data, error, reload } = useLoad(loadUsers);
  const invitations = useLoad(loadInvitations);
  const [draft, update, clear] = useDraft('invite', { email: '', role: 'staff' as Role });
  const [once, setOnce] = useState<User | null>(null);
  const [busy, setBusy] = useState(false);
  const [rowError, setRowError] = useState<{ id: string; text: string } | null>(null);
  const form = useFormErrors(FIELDS);
  const owners = data?.data.filter((u) => u.role === 'owner') ?? [];

  const invite = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    try {
      const i = await call('createInvitation', { body: { email: draft.email.trim(), role: draft.role, language: language() } });
      notify(t('users.invited', { email: i.email }), 'success');
      clear();
      invitations.reload();
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };

  const applyRole = async (u: User, role: Role) => {
    await call('updateUser', { params: { id: u.id }, body: { role } });
    notify(t('users.roleDone', { email: u.email, role: t(`role.${role}`) }), 'success');
    if (u.id === session.user.id) setSession(await call('getSession'));
    else reload();
  };
  const setRole = async (u: User, role: Role, select: HTMLSelectElement) => {
    setRowError(null);
    if (u.id === session.user.id && u.role === 'owner') {
      select.value = u.role;
      await confirm({
        title: t('users.stepDownTitle'),
        body: t('users.stepDownBody', { role: t(`role.${role}`) }),
        confirm: t('users.stepDown'),
        danger: true,
        action: () => applyRole(u, role),
      });
      return;
    }
    setBusy(true);
    try {
      await applyRole(u, role);
    } catch (err) {
      select.value = u.role;
      setRowError({ id: u.id, text: problemText(err) });
    } finally {
      setBusy(false);
    }
  };
  const reset = (u: User) =>
    confirm({
      title: t('users.resetTitle', { email: u.email }),
      body: t('users.resetBody'),
      confirm: t('users.reset'),
      action: async () => setOnce(await call('updateUser', { params: { id: u.id }, body: { reset_password: true } })),
    });
  const remove = (u: User) =>
    confirm({
      title: t('users.removeTitle', { email: u.email }),
      body: t('users.removeBody'),
      confirm: t('users.remove'),
      danger: true,
      action: async () => {
        await call('removeUser', { params: { id: u.id } });
        notify(t('users.removed', { email: u.email }), 'success');
        reload();
      },
    });

  return (
    <section class="admin" aria-labelledby="users-title">
      <h1 id="users-title">{t('users.heading')}</h1>
      <p class="lead">{t('users.lead', { account: session.account.name })}</p>
      {once !== null && (
        <SecretOnce
          title={t('users.onceTitle', { email: once.email })}
          body={t('users.onceBody')}
          secret={once.password}
          testId="one-time-password"
        >
          <button type="button" onClick={() => setOnce(null)}>
            {t('users.done')}
          </button>
        </SecretOnce>
      )}
      <form class="inline-form" onSubmit={invite} aria-label={t('users.inviteLabel')}>
        <Field id="invite-email" label={t('users.email')} error={form.errors.fields.email}>
          <input
            id="invite-email"
            type="email"
            required
            maxLength={254}
            value={draft.email}
            onInput={(e) => update({ email: e.currentTarget.value })}
            {...form.bind('email', 'invite-email')}
          />
        </Field>
        <Field id="invite-role" label={t('users.role')} error={form.errors.fields.role}>
          <select
            id="invite-role"
            value={draft.role}
            onChange={(e) => update({ role: e.currentTarget.value as Role })}
            {...form.bind('role', 'invite-role')}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`role.${r}.long`)}
              </option>
            ))}
          </select>
        </Field>
        <FormSubmit id="invite-form" label={t('users.invite')} error={form.errors.form} disabled={busy} />
        <p class="hint small">{t('users.inviteHint')}</p>
      </form>
      {invitations.data !== null && <Invitations data={invitations.data.data} reload={invitations.reload} />}
      <LoadError error={error} />
      {data !== null && (
        <ListTable
          kind="users"
          caption={t('users.heading')}
          columns={[{ label: t('users.email') }, { label: t('users.role') }, { label: t('users.since'), wide: true }]}
          empty={null}
        >
          {data.data.map((u) => {
            const me = u.id === session.user.id;
            const lastOwner = u.role === 'owner' && owners.length === 1;
            const note = rowError?.id === u.id ? rowError.text : null;
            const describedBy = [lastOwner ? `role-${u.id}-hint` : '', note !== null ? `role-${u.id}-error` : ''].filter(Boolean).join(' ');
            return (
              <tr key={u.id}>
                <td class="wrap">
                  {u.email}
                  {me && <span class="you"> {t('users.you')}</span>}
                </td>
                <td>
                  <select
                    id={`role-${u.id}`}
                    aria-label={t('users.roleOf', { email: u.email })}
                    value={u.role}
                    disabled={busy || lastOwner}
                    aria-invalid={note !== null ? 'true' : undefined}
                    aria-describedby={describedBy || undefined}
                    onChange={(e) => setRole(u, e.currentTarget.value as Role, e.currentTarget)}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {t(`role.${r}`)}
                      </option>
                    ))}
                  </select>
                  {lastOwner && (
                    <p id={`role-${u.id}-hint`} class="hint small">
                      {t(me ? 'users.lastOwnerYou' : 'users.lastOwner')}
                    </p>
                  )}
                  <FieldError id={`role-${u.id}`} text={note} />
                </td>
                <td class="wide-only">{dateTime(u.created_at, session.branch.timezone)}</td>
                <td class="row-actions">
                  <button
                    type="button"
                    class="quiet"
                    disabled={busy}
                    onClick={() => reset(u)}
                    aria-label={t('users.resetLabel', { email: u.email })}
                  >
                    {t('users.reset')}
                  </button>
                  {!me && (
                    <button
                      type="button"
                      class="danger"
                      disabled={busy}
                      onClick={() => remove(u)}
                      aria-label={t('users.removeLabel', { email: u.email })}
                    >
                      {t('users.remove')}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </ListTable>
      )}
    </section>
  );
}
