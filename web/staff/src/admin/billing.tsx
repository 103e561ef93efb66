// Billing (owner): the account's plan and how its subscription at Stripe stands (issue 35, decision
// 0084). Without Stripe on this server, the plan and a sentence saying the operator sets it. With
// it: before a subscription, the plans and periods the operator sells, each a button to Stripe
// Checkout; with one, its status, trial days left, next invoice or end, and "Manage billing" (the
// customer portal: card, plan, period, cancel). Back from Checkout, the screen says how it went.
import { useLayoutEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Billing } from '../types.ts';
import { useLoad } from '../ui/load.ts';
import { problemText } from '../ui/field-errors.tsx';
import { language, t, type MessageKey } from '../i18n/i18n.ts';
import { LoadError } from './form-and-table.tsx';

const loadBilling = () => call('getBilling');
type Period = 'monthly' | 'yearly';
type Returned = 'done' | 'cancelled' | null;

/** `?checkout=done|cancelled` in the address Checkout sends the browser back to; said once. */
function checkoutReturn(): Returned {
  const q = location.hash.indexOf('?');
  const v = q < 0 ? null : new URLSearchParams(location.hash.slice(q + 1)).get('checkout');
  return v === 'done' || v === 'cancelled' ? v : null;
}

const day = (iso: string | null): string =>
  iso === null ? '—' : new Intl.DateTimeFormat(language(), { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso));

const PLAN: Record<string, MessageKey> = { free: 'billing.planFree', pro: 'billing.planPro', business: 'billing.planBusiness' };
const STATUS: Record<string, MessageKey> = {
  active: 'billing.statusActive',
  trialing: 'billing.statusTrialing',
  past_due: 'billing.statusPastDue',
  unpaid: 'billing.statusPastDue',
  canceled: 'billing.statusCanceled',
};

export function BillingScreen() {
  const loaded = useLoad(loadBilling);
  const [returned] = useState<Returned>(checkoutReturn);
  // Before the notice is painted, not after: the address is bare by the time anyone sees the return
  // said (useEffect waits for a frame, and a reload in between would say it twice).
  useLayoutEffect(() => {
    if (returned !== null) history.replaceState(history.state, '', `${location.pathname}#/settings/billing`);
  }, []);
  const b = loaded.data;
  return (
    <section class="admin billing" aria-labelledby="billing-title">
      <h1 id="billing-title" tabIndex={-1}>
        {t('billing.heading')}
      </h1>
      {returned === 'done' && (
        <p class="notice notice-success" role="status">
          {t('billing.returnDone')}
        </p>
      )}
      {returned === 'cancelled' && (
        <p class="notice notice-info" role="status">
          {t('billing.returnCancelled')}
        </p>
      )}
      <LoadError error={loaded.error} />
      {b === null && loaded.error === null && <p class="empty">{t('billing.loading')}</p>}
      {b !== null && <BillingState b={b} />}
    </section>
  );
}

function BillingState({ b }: { b: Billing }) {
  const subscribed = b.status !== null && b.status !== 'canceled' && b.status !== 'incomplete_expired';
  return (
    <>
      {b.payment_failed && (
        <p class="notice notice-warning" role="alert">
          {t('billing.paymentFailed', { date: day(b.grace_until) })}
        </p>
      )}
      <dl class="square-facts billing-facts">
        <div>
          <dt>{t('billing.plan')}</dt>
          <dd>{t(PLAN[b.plan] ?? 'billing.planFree')}</dd>
        </div>
        {b.status !== null && (
          <div>
            <dt>{t('billing.status')}</dt>
            <dd>{STATUS[b.status] !== undefined ? t(STATUS[b.status]!) : b.status}</dd>
          </div>
        )}
        {b.trial_days_left !== null && (
          <div>
            <dt>{t('billing.trialLeft')}</dt>
            <dd>{t('billing.days', { count: b.trial_days_left })}</dd>
          </div>
        )}
        {b.configured && subscribed && (
          <div>
            <dt>{b.cancel_at_period_end ? t('billing.endsOn') : t('billing.nextInvoice')}</dt>
            <dd>{day(b.cancel_at_period_end ? b.current_period_end : b.next_invoice_at)}</dd>
          </div>
        )}
        <div>
          <dt>{t('billing.smsThisMonth')}</dt>
          <dd>{b.sms_this_month}</dd>
        </div>
      </dl>
      {!b.configured && (
        <p class="notice notice-info" role="note">
          {t('billing.operatorSets')}
        </p>
      )}
      {b.configured && b.cancel_at_period_end && <p>{t('billing.cancelling', { date: day(b.current_period_end) })}</p>}
      {b.configured && (subscribed ? <PortalButton /> : <Plans b={b} />)}
    </>
  );
}

/** Goes to the Stripe page an operation answers (Checkout or the portal); a refusal is said beside the button. */
function useRedirect() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async (ask: () => Promise<{ url: string }>) => {
    setBusy(true);
    setError(null);
    try {
      location.assign((await ask()).url);
    } catch (err) {
      setError(problemText(err));
      setBusy(false);
    }
  };
  return { busy, error, go };
}

function Plans({ b }: { b: Billing }) {
  const periods = [...new Set(b.prices.map((p) => p.period))] as Period[];
  const [period, setPeriod] = useState<Period>(periods[0] ?? 'monthly');
  const { busy, error, go } = useRedirect();
  return (
    <div class="billing-plans">
      <h2>{t('billing.choose')}</h2>
      {periods.length > 1 && (
        <fieldset class="billing-period">
          <legend>{t('billing.period')}</legend>
          {periods.map((p) => (
            <label key={p} class="check">
              <input type="radio" name="period" value={p} checked={period === p} onChange={() => setPeriod(p)} />{' '}
              {t(p === 'monthly' ? 'billing.monthly' : 'billing.yearly')}
            </label>
          ))}
        </fieldset>
      )}
      <ul class="billing-plan-list">
        {b.prices
          .filter((p) => p.period === period)
          .map((p) => (
            <li key={p.plan}>
              <h3>{t(PLAN[p.plan]!)}</h3>
              <p>{t(p.plan === 'pro' ? 'billing.proIncludes' : 'billing.businessIncludes')}</p>
              <button
                type="button"
                class="primary"
                disabled={busy}
                onClick={() => go(() => call('createBillingCheckout', { body: { plan: p.plan, period } }))}
              >
                {t('billing.choosePlan', { plan: t(PLAN[p.plan]!) })}
              </button>
            </li>
          ))}
      </ul>
      {error !== null && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function PortalButton() {
  const { busy, error, go } = useRedirect();
  return (
    <div class="billing-portal">
      <p>{t('billing.portalLead')}</p>
      <button type="button" class="primary" disabled={busy} onClick={() => go(() => call('createBillingPortal'))}>
        {t('billing.manage')}
      </button>
      {error !== null && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
