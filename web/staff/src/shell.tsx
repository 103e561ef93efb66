// The frame around every screen: branch, navigation by role, sign-out; screens by URL hash so a
// bookmark or a reload lands on the same screen.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { ApiError, call } from './api.ts';
import type { Role, Session } from './types.ts';
import { atLeast, useSession } from './session.tsx';
import { useNotify } from './ui/notify.tsx';
import { Board } from './board/board.tsx';
import { ApiKeys } from './admin/api-keys.tsx';
import { Users } from './admin/users.tsx';
import { Queues } from './admin/queues.tsx';
import { BranchSettings } from './admin/branch-settings.tsx';
import { Account } from './admin/account.tsx';
import { Displays } from './admin/displays.tsx';
import { Announcements } from './admin/announcements.tsx';
import { Webhooks } from './admin/webhooks.tsx';
import type { List, WebhookEndpoint } from './types.ts';

type Screen = { path: string; label: string; role: Role; component: ComponentType };

export const SCREENS: Screen[] = [
  { path: '/board', label: 'Board', role: 'staff', component: Board },
  { path: '/announcements', label: 'Announcements', role: 'staff', component: Announcements },
  { path: '/admin/queues', label: 'Queues', role: 'manager', component: Queues },
  { path: '/admin/displays', label: 'Displays', role: 'manager', component: Displays },
  { path: '/admin/settings', label: 'Settings', role: 'manager', component: BranchSettings },
  { path: '/admin/keys', label: 'API keys', role: 'owner', component: ApiKeys },
  { path: '/admin/webhooks', label: 'Webhooks', role: 'owner', component: Webhooks },
  { path: '/admin/users', label: 'Users', role: 'owner', component: Users },
  { path: '/account', label: 'Account', role: 'staff', component: Account },
];

function useHashPath(): string {
  const read = () => (location.hash.replace(/^#/, '') || '/board');
  const [path, setPath] = useState(read);
  useEffect(() => {
    const on = () => setPath(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return path;
}

export function Shell() {
  const { session, setSession, signOut } = useSession();
  const notify = useNotify();
  const path = useHashPath();
  const allowed = SCREENS.filter((s) => atLeast(session, s.role));
  const screen = allowed.find((s) => s.path === path) ?? allowed[0]!;

  useEffect(() => {
    document.title = `${screen.label} · ${session.branch.name} · readybell`;
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [screen.path, session.branch.id]);

  // Owners hear about endpoints readybell disabled (410 Gone, days of failures) wherever they are.
  const [disabled, setDisabled] = useState<WebhookEndpoint[]>([]);
  useEffect(() => {
    if (session.user.role !== 'owner' || !session.account.api_access) return setDisabled([]);
    call<List<WebhookEndpoint>>('webhookEndpoints').then((l) => setDisabled(l.data.filter((e) => e.disabled && e.disabled_reason !== null && !/by hand/i.test(e.disabled_reason))), () => {});
  }, [session.branch.id, session.user.role]);

  const switchBranch = async (branch: string) => {
    try {
      setSession(await call<Session>('switchBranch', { body: { branch } }));
    } catch (err) {
      notify(err instanceof ApiError ? err.problem.detail : 'Could not switch branch.', 'error');
    }
  };

  const Screen = screen.component;
  return (
    <div class="shell">
      <a class="skip" href="#main">Skip to content</a>
      <header class="topbar">
        <span class="brand" aria-hidden="true">readybell</span>
        {session.branches.length > 1 ? (
          <label class="branch-switch">
            <span class="sr-only">Branch</span>
            <select value={session.branch.id} onChange={(e) => switchBranch(e.currentTarget.value)}>
              {session.branches.map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
            </select>
          </label>
        ) : <span class="branch-name">{session.branch.name}</span>}
        <nav aria-label="Screens">
          <ul>
            {allowed.map((s) => (
              <li key={s.path}><a href={`#${s.path}`} aria-current={s === screen ? 'page' : undefined} title={s.path === '/account' ? `${session.user.email} (${session.user.role})` : undefined}>{s.label}</a></li>
            ))}
          </ul>
        </nav>
        <button type="button" class="quiet" onClick={signOut}>Sign out</button>
      </header>
      {disabled.length > 0 && screen.path !== '/admin/webhooks' && (
        <p class="notice notice-warning banner" role="note">
          {disabled.length === 1 ? `The webhook endpoint ${disabled[0]!.url} was disabled: ${disabled[0]!.disabled_reason}` : `${disabled.length} webhook endpoints were disabled.`} <a href="#/admin/webhooks">Open webhooks</a>
        </p>
      )}
      <main id="main" tabIndex={-1}>
        <Screen key={session.branch.id} />
      </main>
    </div>
  );
}
