// Webhook endpoints of the branch (owner; in the page's mode, https only). The signing secret is
// shown when created or rotated, and can be revealed again on demand; deliveries open per endpoint.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useSession } from '../session.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { FieldError, useFormErrors } from '../ui/field-errors.tsx';
import { Field, FormSubmit, LoadError } from './form-and-table.tsx';
import { SecretOnce } from './secret-once.tsx';
import { t } from '../i18n/i18n.ts';
import { EndpointDetail } from './webhook-endpoint.tsx';

const EVENTS = [
  'ticket.created',
  'ticket.ready',
  'ticket.rung',
  'ticket.collected',
  'ticket.cancelled',
  'ticket.expired',
  'ticket.reopened',
  'ticket.customer_viewed',
  'ticket.customer_subscribed',
  'ticket.customer_acknowledged',
  'ticket.customer_snoozed',
];
const loadEndpoints = () => call('listWebhookEndpoints');
const FIELDS = ['url', 'description', 'enabled_events'] as const;

export function Webhooks() {
  const { session, mode } = useSession();
  const { data, error, reload } = useLoad(loadEndpoints);
  const [draft, update, clear] = useDraft('webhook', { url: 'https://', description: '', all: true, events: [] as string[] });
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const form = useFormErrors(FIELDS);
  const noApi = !session.account.api_access;

  const create = async (e: Event) => {
    e.preventDefault();
    form.reset();
    try {
      const description = draft.description.trim();
      const body = {
        url: draft.url.trim(),
        enabled_events: draft.all ? ['*'] : draft.events,
        ...(description === '' ? {} : { description }),
      };
      const ep = await call('createWebhookEndpoint', { body });
      if (ep.secret) setSecret({ url: ep.url, secret: ep.secret });
      clear();
      reload();
    } catch (err) {
      form.fail(err);
    }
  };
  const toggle = (ev: string, on: boolean) => update({ events: on ? [...draft.events, ev] : draft.events.filter((x) => x !== ev) });

  return (
    <section class="admin" aria-labelledby="wh-title">
      <h1 id="wh-title">{t('webhooks.heading')}</h1>
      <p class="lead">
        {t(mode === 'test' ? 'webhooks.leadTest' : 'webhooks.lead')} {t('webhooks.verify')}
      </p>
      {noApi && (
        <p class="notice notice-warning" role="note">
          {t('webhooks.noApi', { plan: session.account.plan })}
        </p>
      )}
      {data?.data
        .filter((ep) => ep.disabled && ep.disabled_reason !== null)
        .map((ep) => (
          <p key={ep.id} class="notice notice-warning" role="note">
            {t('webhooks.isDisabled', { url: ep.url, reason: ep.disabled_reason ?? '' })}
          </p>
        ))}
      {secret !== null && (
        <SecretOnce
          title={t('webhooks.secretFor', { url: secret.url })}
          body={t('webhooks.secretBody')}
          secret={secret.secret}
          testId="webhook-secret"
        >
          <button type="button" onClick={() => setSecret(null)}>
            {t('users.done')}
          </button>
        </SecretOnce>
      )}
      <form class="settings" onSubmit={create} aria-label={t('webhooks.addLabel')}>
        <Field id="wh-url" label={t('webhooks.url')} note={t('webhooks.https')} error={form.errors.fields.url} layout="settings">
          <input
            id="wh-url"
            type="url"
            required
            maxLength={2048}
            value={draft.url}
            onInput={(e) => update({ url: e.currentTarget.value })}
            disabled={noApi}
            {...form.bind('url', 'wh-url')}
          />
        </Field>
        <Field
          id="wh-desc"
          label={t('webhooks.description')}
          note={t('form.optional')}
          error={form.errors.fields.description}
          layout="settings"
        >
          <input
            id="wh-desc"
            maxLength={500}
            value={draft.description}
            onInput={(e) => update({ description: e.currentTarget.value })}
            disabled={noApi}
            {...form.bind('description', 'wh-desc')}
          />
        </Field>
        <label class="check">
          <input type="checkbox" checked={draft.all} onChange={(e) => update({ all: e.currentTarget.checked })} disabled={noApi} />{' '}
          {t('webhooks.every')}
        </label>
        {!draft.all && (
          <fieldset class="checks">
            <legend>{t('webhooks.events')}</legend>
            {EVENTS.map((ev) => (
              <label key={ev} class="check">
                <input type="checkbox" checked={draft.events.includes(ev)} onChange={(e) => toggle(ev, e.currentTarget.checked)} />{' '}
                <code>{ev}</code>
              </label>
            ))}
            <FieldError id="wh-events" text={form.errors.fields.enabled_events} />
          </fieldset>
        )}
        <FormSubmit id="wh-form" label={t('webhooks.add')} error={form.errors.form} disabled={noApi} layout="settings" />
      </form>
      <LoadError error={error} />
      {data !== null && (
        <ul class="plain-list endpoints" aria-label={t('webhooks.heading')}>
          {data.data.length === 0 && <li class="empty">{t('webhooks.none')}</li>}
          {data.data.map((ep) => (
            <li key={ep.id} class="endpoint">
              <div class="endpoint-head">
                <strong class="endpoint-url">{ep.url}</strong>
                <span class={`badge ${ep.disabled ? 'badge-off' : 'badge-on'}`}>
                  {t(ep.disabled ? 'webhooks.disabled' : 'webhooks.enabled')}
                </span>
              </div>
              {ep.description && <p>{ep.description}</p>}
              <p class="hint">
                {t('webhooks.summary', {
                  events: ep.enabled_events.includes('*') ? t('webhooks.everyEvent') : ep.enabled_events.join(', '),
                  since: dateTime(ep.created_at, session.branch.timezone),
                })}
              </p>
              <button type="button" aria-expanded={open === ep.id} onClick={() => setOpen(open === ep.id ? null : ep.id)}>
                {t(open === ep.id ? 'webhooks.hide' : 'webhooks.details')}
              </button>
              {open === ep.id && (
                <EndpointDetail endpoint={ep} onChanged={reload} onSecret={(s) => setSecret({ url: ep.url, secret: s })} />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
