// Shopify (owner): connect the branch to a Shopify store so its local pickup orders become tickets
// (decision 0090, issue 33). Shopify's consent page is the store's own, so the owner names the
// store first (its myshopify.com domain); "Connect Shopify" asks the API for that page (the
// connector port's shared OAuth flow) and goes there; back from it, the owner picks the location;
// once connected, the store, location, queue and since when, and Disconnect. The screen's look is
// Square's (its classes), so the two connector screens read alike.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { ShopifyConnection } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { useConfirm } from '../ui/dialog.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/load.ts';
import { FieldError, useFormErrors } from '../ui/field-errors.tsx';
import { t } from '../i18n/i18n.ts';
import { Field, FormSubmit, LoadError } from './form-and-table.tsx';
import { clearOAuthReturn, oauthReturn, type OAuthReturn } from './connector-return.ts';

const loadConnection = () => call('getShopifyConnection');

export function ShopifyConnector() {
  const loaded = useLoad(loadConnection);
  // What PATCH and DELETE answered replaces what was loaded; no second read.
  const [answered, setAnswered] = useState<ShopifyConnection | null>(null);
  const c = answered ?? loaded.data;
  const [returned] = useState<OAuthReturn | null>(() => oauthReturn('shopify'));
  useEffect(() => clearOAuthReturn('shopify'), []);
  return (
    <section class="admin square shopify" aria-labelledby="shopify-title">
      <h1 id="shopify-title">{t('shopify.heading')}</h1>
      <p class="lead">{t('shopify.lead')}</p>
      {returned !== null && answered === null && (
        <p
          class={`notice ${returned.kind === 'connected' ? 'notice-success' : 'notice-warning'}`}
          role={returned.kind === 'connected' ? 'status' : 'alert'}
        >
          {returned.kind === 'connected' ? t('shopify.returnConnected') : t('shopify.returnFailed', { code: returned.code })}
        </p>
      )}
      <LoadError error={loaded.error} />
      {c === null && loaded.error === null && <p class="empty">{t('shopify.loading')}</p>}
      {c !== null && <Connection c={c} onChanged={setAnswered} />}
    </section>
  );
}

type Props = { c: ShopifyConnection; onChanged: (c: ShopifyConnection) => void };

function Connection({ c, onChanged }: Props) {
  switch (c.status) {
    case 'not_configured':
      return (
        <p class="notice notice-info" role="note">
          {t('shopify.notConfigured')}
        </p>
      );
    case 'not_connected':
      return <ConnectForm />;
    case 'choose_location':
      return (
        <>
          <p>{t('shopify.chooseLead', { shop: c.shop_name ?? c.shop ?? '' })}</p>
          <LocationForm onSaved={onChanged} />
          <Disconnect c={c} onChanged={onChanged} />
        </>
      );
    case 'connected':
      return <Connected c={c} onChanged={onChanged} />;
  }
}

/** The store's domain, then Shopify's consent page on that store (its state bound to this session). */
function ConnectForm() {
  const [shop, setShop] = useState('');
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(['shop']);
  const connect = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    try {
      const { authorize_url } = await call('authorizeShopify', { body: { shop: shop.trim() } });
      location.assign(authorize_url);
    } catch (err) {
      form.fail(err);
      setBusy(false);
    }
  };
  return (
    <form class="inline-form" onSubmit={connect} aria-label={t('shopify.connect')}>
      <Field id="shopify-shop" label={t('shopify.shop')} error={form.errors.fields.shop}>
        <input
          id="shopify-shop"
          type="text"
          inputMode="url"
          autoComplete="off"
          spellcheck={false}
          required
          maxLength={100}
          placeholder="corner-cafe.myshopify.com"
          value={shop}
          onInput={(e) => setShop(e.currentTarget.value)}
          {...form.bind('shop', 'shopify-shop')}
        />
      </Field>
      <FormSubmit
        id="shopify-connect"
        label={busy ? t('shopify.opening') : t('shopify.connect')}
        error={form.errors.form}
        disabled={busy}
      />
      <p class="hint small">{t('shopify.shopHint')}</p>
    </form>
  );
}

/** Which of the store's active locations sends its pickup orders here (the branch's default queue until changed by the API). */
function LocationForm({ onSaved }: { onSaved: (c: ShopifyConnection) => void }) {
  const notify = useNotify();
  const load = useCallback(() => call('listShopifyLocations'), []);
  const { data, error } = useLoad(load);
  const [chosen, setChosen] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(['location_id']);
  if (error !== null) return <LoadError error={error} />;
  if (data === null) return <p class="empty">{t('shopify.loadingLocations')}</p>;
  const active = data.data.filter((l) => l.active);
  const picked = chosen ?? (active.length === 1 ? active[0]!.id : null);
  const save = async (e: Event) => {
    e.preventDefault();
    if (picked === null) return;
    setBusy(true);
    form.reset();
    try {
      const next = await call('updateShopifyConnection', { body: { location_id: picked } });
      onSaved(next);
      notify(t('shopify.started', { location: next.location?.name ?? '' }), 'success');
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="settings square-form" onSubmit={save} noValidate>
      <fieldset>
        <legend>{t('shopify.location')}</legend>
        {active.length === 0 && <p class="hint">{t('shopify.noLocations')}</p>}
        <ul class="square-locations">
          {data.data.map((l) => (
            <li key={l.id}>
              <label class="check">
                <input
                  type="radio"
                  name="shopify-location"
                  value={l.id}
                  checked={picked === l.id}
                  disabled={!l.active}
                  onChange={() => setChosen(l.id)}
                />
                <span>
                  <span>
                    <strong>{l.name}</strong>
                    {!l.active && <span class="badge">{t('square.inactive')}</span>}
                  </span>
                </span>
              </label>
            </li>
          ))}
        </ul>
        <FieldError id="shopify-location" text={form.errors.fields.location_id} />
      </fieldset>
      <FormSubmit
        id="shopify-save"
        label={busy ? t('dialog.working') : t('shopify.start')}
        error={form.errors.form}
        disabled={busy || picked === null}
        layout="settings"
      />
    </form>
  );
}

function Connected({ c, onChanged }: Props) {
  const { session } = useSession();
  return (
    <>
      <p class="square-state">
        <span class="badge badge-on">{t('shopify.connected')}</span>
      </p>
      <dl class="square-facts">
        <div>
          <dt>{t('shopify.store')}</dt>
          <dd>
            {c.shop_name ?? c.shop ?? '—'}
            {c.livemode === false && <span class="badge mode-test">{t('shopify.development')}</span>}
          </dd>
        </div>
        <div>
          <dt>{t('shopify.location')}</dt>
          <dd>{c.location?.name ?? '—'}</dd>
        </div>
        <div>
          <dt>{t('shopify.queue')}</dt>
          <dd>{c.queue ?? t('square.defaultQueue')}</dd>
        </div>
        <div>
          <dt>{t('shopify.since')}</dt>
          <dd>{dateTime(c.connected_at, session.branch.timezone)}</dd>
        </div>
      </dl>
      {c.livemode === false && <p class="hint">{t('shopify.developmentNote')}</p>}
      <Disconnect c={c} onChanged={onChanged} />
    </>
  );
}

/** Disconnect, after asking: readybell erases the token; the app stays installed in the store until its owner removes it. */
function Disconnect({ c, onChanged }: Props) {
  const confirm = useConfirm();
  const notify = useNotify();
  const disconnect = () =>
    confirm({
      title: t('shopify.disconnectTitle', { shop: c.shop_name ?? c.shop ?? 'Shopify' }),
      body: t('shopify.disconnectBody'),
      confirm: t('shopify.disconnect'),
      danger: true,
      action: async () => {
        onChanged(await call('disconnectShopify'));
        notify(t('shopify.disconnected'), 'success');
      },
    });
  return (
    <div class="row-actions left square-disconnect">
      <button type="button" class="danger" onClick={disconnect}>
        {t('shopify.disconnect')}
      </button>
    </div>
  );
}
