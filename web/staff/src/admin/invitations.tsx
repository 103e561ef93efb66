// The account's open invitations on the users screen (owner): each with its link's expiry, to
// resend (a new link, the old one stops) or revoke. An expired one says so, for a resend.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Invitation } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { dateTime } from '../ui/format.ts';
import { problemText } from '../ui/field-errors.tsx';
import { ListTable } from './form-and-table.tsx';
import { t } from '../i18n/i18n.ts';

export function Invitations({ data, reload }: { data: Invitation[]; reload: () => void }) {
  const { session } = useSession();
  const notify = useNotify();
  const confirm = useConfirm();
  const [busy, setBusy] = useState(false);
  if (data.length === 0) return null;

  const resend = async (i: Invitation) => {
    setBusy(true);
    try {
      await call('resendInvitation', { params: { id: i.id } });
      notify(t('invitations.resent', { email: i.email }), 'success');
      reload();
    } catch (err) {
      notify(problemText(err), 'warning');
    } finally {
      setBusy(false);
    }
  };
  const revoke = (i: Invitation) =>
    confirm({
      title: t('invitations.revokeTitle', { email: i.email }),
      body: t('invitations.revokeBody'),
      confirm: t('invitations.revoke'),
      danger: true,
      action: async () => {
        await call('revokeInvitation', { params: { id: i.id } });
        notify(t('invitations.revoked', { email: i.email }), 'success');
        reload();
      },
    });

  return (
    <>
      <h2 id="invitations-title">{t('invitations.heading')}</h2>
      <ListTable
        kind="invitations"
        caption={t('invitations.heading')}
        columns={[{ label: t('invitations.email') }, { label: t('invitations.role'), wide: true }, { label: t('invitations.status') }]}
        empty={null}
      >
        {data.map((i) => (
          <tr key={i.id}>
            <td class="wrap">{i.email}</td>
            <td class="wide-only">{t(`role.${i.role}`)}</td>
            <td>
              {i.status === 'expired'
                ? t('invitations.expired')
                : t('invitations.pending', { date: dateTime(i.expires_at, session.branch.timezone) })}
            </td>
            <td class="row-actions">
              <button
                type="button"
                class="quiet"
                disabled={busy}
                onClick={() => resend(i)}
                aria-label={t('invitations.resendLabel', { email: i.email })}
              >
                {t('invitations.resend')}
              </button>
              <button
                type="button"
                class="danger"
                disabled={busy}
                onClick={() => revoke(i)}
                aria-label={t('invitations.revokeLabel', { email: i.email })}
              >
                {t('invitations.revoke')}
              </button>
            </td>
          </tr>
        ))}
      </ListTable>
    </>
  );
}
