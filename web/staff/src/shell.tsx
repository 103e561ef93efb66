// The frame around every screen: branch, live/test data switch, navigation by role, the account
// menu (language, password, sign-out); screens by URL hash so a bookmark or a reload lands on the
// same screen. Test mode paints an orange band over the page so nobody takes test data for the
// real counter.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { call } from './api.ts';
import type { InstalledConnector, Role, WebhookEndpoint } from './types.ts';
import { atLeast, useSession } from './session.tsx';
import { useClearNotices } from './ui/notify.tsx';
import { problemText } from './ui/field-errors.tsx';
import { t, type MessageKey } from './i18n/i18n.ts';
import { AccountMenu } from './account-menu.tsx';
import { ModeSwitch } from './mode-switch.tsx';
import { Board } from './board/board.tsx';
import { ApiKeys } from './admin/api-keys.tsx';
import { Users } from './admin/users.tsx';
import { Queues } from './admin/queues.tsx';
import { BranchSettings } from './admin/branch-settings.tsx';
import { Account } from './admin/account.tsx';
import { Displays } from './admin/displays.tsx';
import { Announcements } from './admin/announcements.tsx';
import { Webhooks } from './admin/webhooks.tsx';
import { connectorScreens } from './admin/connector-screens.ts';
import { BillingScreen } from './admin/billing.tsx';
import { Insights } from './insights/insights.tsx';

type Screen = { path: string; label: MessageKey; role: Role; component: ComponentType; inNav: boolean };

export const SCREENS: Screen[] = [
  { path: '/board', label: 'nav.board', role: 'staff', component: Board, inNav: true },
  { path: '/announcements', label: 'nav.announcements', role: 'staff', component: Announcements, inNav: true },
  { path: '/insights', label: 'nav.insights', role: 'manager', component: Insights, inNav: true },
  { path: '/admin/queues', label: 'nav.queues', role: 'manager', component: Queues, inNav: true },
  { path: '/admin/displays', label: 'nav.displays', role: 'manager', component: Displays, inNav: true },
  { path: '/admin/settings', label: 'nav.settings', role: 'manager', component: BranchSettings, inNav: true },
  { path: '/admin/keys', label: 'nav.keys', role: 'owner', component: ApiKeys, inNav: true },
  { path: '/admin/webhooks', label: 'nav.webhooks', role: 'owner', component: Webhooks, inNav: true },
  { path: '/admin/users', label: 'nav.users', role: 'owner', component: Users, inNav: true },
  // Here come the installed connectors' screens (Square, Shopify: GET /v1/connectors, decision 0094),
  // at the addresses their OAuth callbacks send the owner back to (docs/square-owner.md).
  // The address Stripe's Checkout and customer portal send the owner back to (decision 0084).
  { path: '/settings/billing', label: 'nav.billing', role: 'owner', component: BillingScreen, inNav: true },
  // Reached from the account menu.
  { path: '/account', label: 'nav.account', role: 'staff', component: Account, inNav: false },
];

function useHashPath(): string {
  // A screen's address may carry a query after it (`#/settings/square?square=connected`): the
  // screen reads it; the path alone picks the screen.
  const read = () => location.hash.replace(/^#/, '').split('?')[0] || '/board';
  const [path, setPath] = useState(read);
  useEffect(() => {
    const on = () => setPath(read());
    addEventListener('hashchange', on);
    // The hash may have changed between this render and the listener: a remount (the page's
    // language loading as a link is clicked) would otherwise stay on the screen it rendered.
    on();
    return () => removeEventListener('hashchange', on);
  }, []);
  return path;
}

/** The owner's connector screens go before Billing, in the order the server lists the connectors. */
function withConnectors(installed: readonly InstalledConnector[]): Screen[] {
  const at = SCREENS.findIndex((s) => s.path === '/settings/billing');
  const connectors = connectorScreens(installed).map((c): Screen => ({ ...c, role: 'owner', inNav: true }));
  return [...SCREENS.slice(0, at), ...connectors, ...SCREENS.slice(at)];
}

export function Shell() {
  const { session, setSession, mode } = useSession();
  const clearNotices = useClearNotices();
  const path = useHashPath();
  // Only owners have connector screens; null while the list is on its way.
  const [installed, setInstalled] = useState<InstalledConnector[] | null>(null);
  const owner = session.user.role === 'owner';
  useEffect(() => {
    if (!owner) return setInstalled([]);
    call('listConnectors').then(
      (l) => setInstalled(l.data),
      () => setInstalled([]),
    );
  }, [owner]);
  const allowed = withConnectors(installed ?? []).filter((s) => atLeast(session, s.role));
  const found = allowed.find((s) => s.path === path);
  // Back from a POS's consent page, the connector's screen is waited for rather than the board shown.
  const waiting = found === undefined && installed === null && path.startsWith('/settings/');
  const screen = found ?? allowed[0]!;
  const [branchError, setBranchError] = useState<string | null>(null);

  useEffect(() => {
    document.title = `${mode === 'test' ? `${t('mode.testTitle')} · ` : ''}${t(screen.label)} · ${session.branch.name} · readybell`;
    document.getElementById('main')?.focus({ preventScroll: true });
    // Messages belong to the screen they were said on.
    clearNotices();
  }, [screen.path, session.branch.id, mode]);

  // Owners hear about endpoints readybell disabled (410 Gone, days of failures) wherever they are.
  const [disabled, setDisabled] = useState<WebhookEndpoint[]>([]);
  useEffect(() => {
    if (session.user.role !== 'owner' || !session.account.api_access) return setDisabled([]);
    call('listWebhookEndpoints').then(
      (l) => setDisabled(l.data.filter((e) => e.disabled && e.disabled_reason !== null && !/by hand/i.test(e.disabled_reason))),
      () => {},
    );
  }, [session.branch.id, session.user.role, mode]);

  // And about a failed payment, before the grace runs out (decision 0085).
  const [paymentFailed, setPaymentFailed] = useState(false);
  useEffect(() => {
    if (session.user.role !== 'owner') return setPaymentFailed(false);
    call('getBilling').then(
      (b) => setPaymentFailed(b.payment_failed),
      () => {},
    );
  }, [session.account.id, session.user.role]);

  const switchBranch = async (branch: string) => {
    setBranchError(null);
    try {
      setSession(await call('switchSessionBranch', { body: { branch } }));
    } catch (err) {
      setBranchError(problemText(err));
    }
  };

  const Screen = screen.component;
  return (
    <div class={`shell shell-${mode}`}>
      <a class="skip" href="#main">
        {t('nav.skip')}
      </a>
      {mode === 'test' && (
        <p class="test-band" role="note">
          <strong>{t('mode.band')}</strong> <span>{t('mode.bandText')}</span>
        </p>
      )}
      <header class="topbar">
        <span class="brand" aria-hidden="true">
          readybell
        </span>
        {session.branches.length > 1 ? (
          <label class="branch-switch">
            <span class="sr-only">{t('nav.branch')}</span>
            <select
              value={session.branch.id}
              onChange={(e) => switchBranch(e.currentTarget.value)}
              aria-invalid={branchError !== null ? 'true' : undefined}
              aria-describedby={branchError !== null ? 'branch-error' : undefined}
            >
              {session.branches.map((b) => (
                <option key={b.id} value={b.id}>
                  {b.name}
                </option>
              ))}
            </select>
            {branchError !== null && (
              <span id="branch-error" class="field-error" role="alert">
                {branchError}
              </span>
            )}
          </label>
        ) : (
          <span class="branch-name">{session.branch.name}</span>
        )}
        {session.account.api_access && <ModeSwitch />}
        <nav aria-label={t('nav.label')}>
          <ul>
            {allowed
              .filter((s) => s.inNav)
              .map((s) => (
                <li key={s.path}>
                  <a href={`#${s.path}`} aria-current={s === screen ? 'page' : undefined}>
                    {t(s.label)}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
        <AccountMenu current={screen.path === '/account'} />
      </header>
      {disabled.length > 0 && screen.path !== '/admin/webhooks' && (
        <p class="notice notice-warning banner" role="note">
          {disabled.length === 1
            ? t('webhooks.disabledOne', { url: disabled[0]!.url, reason: disabled[0]!.disabled_reason ?? '' })
            : t('webhooks.disabledMany', { count: disabled.length })}{' '}
          <a href="#/admin/webhooks">{t('webhooks.open')}</a>
        </p>
      )}
      {paymentFailed && screen.path !== '/settings/billing' && (
        <p class="notice notice-warning banner" role="note">
          {t('billing.banner')} <a href="#/settings/billing">{t('billing.bannerLink')}</a>
        </p>
      )}
      <main id="main" tabIndex={-1}>
        {!waiting && <Screen key={`${session.branch.id}:${mode}`} />}
      </main>
    </div>
  );
}
