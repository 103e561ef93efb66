// Branch settings (manager): what PATCH /v1/branch accepts. Only changed fields are sent; the
// edits are a draft until saved, so an expired session loses nothing. The server's objections
// are shown under the field they point at; the time zone is picked from a searchable list. In test
// mode the settings are shown read-only, with the reason: they shape live tickets too, so only live
// mode (or the live key) changes them (PRODUCT.md §1, decision 0052).
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { call, type Body } from '../api.ts';
import type { Branch } from '../types.ts';
import { useSession } from '../session.tsx';
import { useNotify } from '../ui/notify.tsx';
import { useLoad } from '../ui/load.ts';
import { useDraft } from '../ui/drafts.ts';
import { FieldError, useFormErrors } from '../ui/field-errors.tsx';
import { TimeZonePicker } from '../ui/timezone-picker.tsx';
import { t, type MessageKey } from '../i18n/i18n.ts';
import { CUSTOMER_LANGUAGES } from '../ui/customer-languages.ts';
import { EscalationLadder, MAX_STEPS, type LadderStep } from './escalation-ladder.tsx';
import { PAID_SWITCHES, PAID_SWITCH_NAMES, pickPaidSwitches, type PaidSwitchSettings } from '../../../../src/core/channel-catalogue.ts';

const loadAll = () => Promise.all([call('getBranch'), call('listQueues')]);

type Flat = {
  name: string;
  timezone: string;
  default_queue: string;
  expiry_hours: number;
  reminder_delay_seconds: number;
  reminder_count: number;
  voice_enabled: boolean;
  voice_language: string;
  page_language: string;
  msg_waiting: string;
  msg_ready: string;
  msg_closed: string;
  phone_entry: boolean;
  phone_country: string;
  ladder: LadderStep[] | null;
} & PaidSwitchSettings; // each paid channel's switch (`sms_enabled`, …), from the catalogue

const flatten = (b: Branch): Flat => ({
  name: b.name,
  timezone: b.timezone,
  default_queue: b.default_queue,
  expiry_hours: b.expiry_hours,
  reminder_delay_seconds: b.reminder_delay_seconds,
  reminder_count: b.reminder_count,
  voice_enabled: b.voice.enabled,
  voice_language: b.voice.language,
  page_language: b.customer_page.language,
  msg_waiting: b.customer_page.messages.waiting ?? '',
  msg_ready: b.customer_page.messages.ready ?? '',
  msg_closed: b.customer_page.messages.closed ?? '',
  ...pickPaidSwitches(b),
  phone_entry: b.customer_page.phone_entry,
  phone_country: b.customer_page.phone_country ?? '',
  ladder: b.escalation_ladder,
});

/** `o` without its undefined fields, or undefined when none is left: only edited fields are sent. */
function edited<T extends Record<string, unknown>>(o: T): T | undefined {
  const kept = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length === 0 ? undefined : (kept as T);
}

/** A text that may be cleared: empty sends null (the default comes back). */
const orNull = (v: string | undefined, shape = (s: string) => s): string | null | undefined =>
  v === undefined ? undefined : v.trim() === '' ? null : shape(v.trim());

function patchOf(e: Partial<Flat>): Body<'updateBranch'> {
  return (
    edited({
      name: e.name,
      timezone: e.timezone,
      default_queue: e.default_queue,
      expiry_hours: e.expiry_hours,
      reminder_delay_seconds: e.reminder_delay_seconds,
      reminder_count: e.reminder_count,
      escalation_ladder: e.ladder,
      ...pickPaidSwitches(e),
      voice: edited({ enabled: e.voice_enabled, language: e.voice_language }),
      customer_page: edited({
        language: e.page_language,
        phone_entry: e.phone_entry,
        phone_country: orNull(e.phone_country, (c) => c.toUpperCase()),
        messages: edited({ waiting: orNull(e.msg_waiting), ready: orNull(e.msg_ready), closed: orNull(e.msg_closed) }),
      }),
    }) ?? {}
  );
}

const POINTERS: Record<string, keyof Flat> = {
  '/voice/enabled': 'voice_enabled',
  '/voice/language': 'voice_language',
  '/customer_page/language': 'page_language',
  '/customer_page/messages/waiting': 'msg_waiting',
  '/customer_page/messages/ready': 'msg_ready',
  '/customer_page/messages/closed': 'msg_closed',
  '/customer_page/phone_entry': 'phone_entry',
  '/customer_page/phone_country': 'phone_country',
  // Any objection to the ladder is shown under it (its text says which step).
  '/escalation_ladder': 'ladder',
  ...Object.fromEntries(
    Array.from({ length: MAX_STEPS }, (_, i) =>
      ['', '/after_seconds', '/channels', '/sms', '/call_out'].map((f) => [`/escalation_ladder/${i}${f}`, 'ladder']),
    ).flat(),
  ),
};
const FIELDS: Array<keyof Flat> = [
  'name',
  'timezone',
  'default_queue',
  'expiry_hours',
  'reminder_delay_seconds',
  'reminder_count',
  'voice_enabled',
  'voice_language',
  'page_language',
  'msg_waiting',
  'msg_ready',
  'msg_closed',
  ...PAID_SWITCH_NAMES,
  'phone_entry',
  'phone_country',
  'ladder',
];

export function BranchSettings() {
  const { session, mode } = useSession();
  const readOnly = mode === 'test';
  const notify = useNotify();
  const { data, error, reload } = useLoad(loadAll);
  const [edits, update, clear] = useDraft<Partial<Flat>>(`settings:${session.branch.id}`, {});
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(FIELDS, POINTERS);
  if (error)
    return (
      <p class="field-error" role="alert">
        {error}
      </p>
    );
  if (data === null) return <p class="empty">{t('settings.loading')}</p>;
  const [branch, queues] = data;
  const f: Flat = { ...flatten(branch), ...edits };
  const dirty = Object.keys(edits).length > 0;
  const smsPlan = branch.plan === 'business';

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    form.reset();
    try {
      await call('updateBranch', { body: patchOf(edits) });
      clear();
      reload();
      notify(t('settings.saved'), 'success');
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };
  const num = (k: keyof Flat) => (e: Event) => update({ [k]: Number((e.currentTarget as HTMLInputElement).value) } as Partial<Flat>);
  const text = (k: keyof Flat) => (e: Event) => update({ [k]: (e.currentTarget as HTMLInputElement).value } as Partial<Flat>);
  const check = (k: keyof Flat) => (e: Event) => update({ [k]: (e.currentTarget as HTMLInputElement).checked } as Partial<Flat>);
  const err = (k: keyof Flat, id: string) => <FieldError id={id} text={form.errors.fields[k]} />;
  const label = (id: string, key: MessageKey, note?: MessageKey) => (
    <label for={id}>
      {t(key)}
      {note && (
        <>
          {' '}
          <small>{t(note)}</small>
        </>
      )}
    </label>
  );
  const langs = (id: string, value: string, k: keyof Flat) => (
    <select id={id} value={value} onChange={text(k)} {...form.bind(k, id)}>
      {CUSTOMER_LANGUAGES.map(([c, l]) => (
        <option key={c} value={c} lang={c}>
          {l}
        </option>
      ))}
    </select>
  );

  return (
    <section class="admin" aria-labelledby="settings-title">
      <h1 id="settings-title">{t('settings.heading')}</h1>
      {readOnly && (
        <p class="notice notice-warning" role="note" data-testid="settings-read-only">
          {t('settings.readOnlyInTest')}
        </p>
      )}
      {dirty && !readOnly && (
        <p class="notice notice-info" role="status">
          {t('settings.unsaved')}
        </p>
      )}
      <form class="settings" onSubmit={save}>
        <fieldset disabled={readOnly}>
          <legend>{t('settings.branch')}</legend>
          {label('s-name', 'settings.name')}
          <input id="s-name" required maxLength={100} value={f.name} onInput={text('name')} {...form.bind('name', 's-name')} />
          {err('name', 's-name')}
          {label('s-tz', 'settings.timezone', 'settings.timezoneNote')}
          <TimeZonePicker
            id="s-tz"
            value={f.timezone}
            onChange={(z) => update({ timezone: z })}
            invalid={form.errors.fields.timezone !== undefined}
            describedBy={form.errors.fields.timezone !== undefined ? 's-tz-error' : undefined}
          />
          {err('timezone', 's-tz')}
          {label('s-queue', 'settings.defaultQueue')}
          <select id="s-queue" value={f.default_queue} onChange={text('default_queue')} {...form.bind('default_queue', 's-queue')}>
            {queues.data.map((q) => (
              <option key={q.name} value={q.name}>
                {q.name}
              </option>
            ))}
          </select>
          {err('default_queue', 's-queue')}
        </fieldset>
        <fieldset disabled={readOnly}>
          <legend>{t('settings.tickets')}</legend>
          {label('s-exp', 'settings.expiry')}
          <input
            id="s-exp"
            type="number"
            min={0.25}
            max={72}
            step={0.25}
            required
            value={f.expiry_hours}
            onInput={num('expiry_hours')}
            {...form.bind('expiry_hours', 's-exp')}
          />
          {err('expiry_hours', 's-exp')}
          {/* With a ladder the reminders are its steps: these two would only mislead (they are kept,
              and come back if the ladder is turned off). */}
          {f.ladder === null ? (
            <>
              {label('s-rd', 'settings.reminderDelay')}
              <input
                id="s-rd"
                type="number"
                min={30}
                max={3600}
                step={1}
                required
                value={f.reminder_delay_seconds}
                onInput={num('reminder_delay_seconds')}
                {...form.bind('reminder_delay_seconds', 's-rd')}
              />
              {err('reminder_delay_seconds', 's-rd')}
              {label('s-rc', 'settings.reminderCount')}
              <input
                id="s-rc"
                type="number"
                min={0}
                max={5}
                step={1}
                required
                value={f.reminder_count}
                onInput={num('reminder_count')}
                {...form.bind('reminder_count', 's-rc')}
              />
              {err('reminder_count', 's-rc')}
            </>
          ) : (
            <p class="hint">{t('settings.remindersByLadder')}</p>
          )}
        </fieldset>
        <fieldset disabled={readOnly}>
          <legend>{t('ladder.heading')}</legend>
          <EscalationLadder
            ladder={f.ladder}
            smsPlan={smsPlan}
            paidOn={PAID_SWITCHES.filter((s) => f[s.setting]).map((s) => s.channel)}
            reminders={{ delay: f.reminder_delay_seconds, count: f.reminder_count }}
            onChange={(ladder) => update({ ladder })}
            invalid={form.errors.fields.ladder !== undefined}
          />
          {err('ladder', 's-ladder')}
        </fieldset>
        <fieldset disabled={readOnly}>
          <legend>{t('settings.voice')}</legend>
          <label class="check">
            <input type="checkbox" checked={f.voice_enabled} onChange={check('voice_enabled')} /> {t('settings.voiceOn')}
          </label>
          {label('s-vl', 'settings.voiceLanguage')}
          {langs('s-vl', f.voice_language, 'voice_language')}
          {err('voice_language', 's-vl')}
        </fieldset>
        <fieldset disabled={readOnly}>
          <legend>{t('settings.customerPage')}</legend>
          {label('s-pl', 'settings.pageLanguage', 'settings.pageLanguageNote')}
          {langs('s-pl', f.page_language, 'page_language')}
          {err('page_language', 's-pl')}
          {label('s-mw', 'settings.msgWaiting')}
          <textarea
            id="s-mw"
            maxLength={280}
            rows={2}
            value={f.msg_waiting}
            onInput={text('msg_waiting')}
            {...form.bind('msg_waiting', 's-mw')}
          />
          {err('msg_waiting', 's-mw')}
          {label('s-mr', 'settings.msgReady')}
          <textarea
            id="s-mr"
            maxLength={280}
            rows={2}
            value={f.msg_ready}
            onInput={text('msg_ready')}
            {...form.bind('msg_ready', 's-mr')}
          />
          {err('msg_ready', 's-mr')}
          {label('s-mc', 'settings.msgClosed')}
          <textarea
            id="s-mc"
            maxLength={280}
            rows={2}
            value={f.msg_closed}
            onInput={text('msg_closed')}
            {...form.bind('msg_closed', 's-mc')}
          />
          {err('msg_closed', 's-mc')}
          {/* One switch per paid channel, from the catalogue: labelled `settings.<channel>`. */}
          {PAID_SWITCHES.map((s) => (
            <Fragment key={s.setting}>
              <label class="check">
                <input type="checkbox" checked={f[s.setting]} onChange={check(s.setting)} {...form.bind(s.setting, `s-${s.channel}`)} />{' '}
                {t(`settings.${s.channel}` as MessageKey)}
              </label>
              {err(s.setting, `s-${s.channel}`)}
            </Fragment>
          ))}
          {/* Only the business plan has SMS; a branch that lost it may still turn this off. */}
          <label class="check">
            <input
              type="checkbox"
              id="s-phone"
              checked={f.phone_entry}
              disabled={!smsPlan && !f.phone_entry}
              onChange={check('phone_entry')}
              {...form.bind('phone_entry', 's-phone')}
            />{' '}
            {t('settings.phoneEntry')}
          </label>
          {err('phone_entry', 's-phone')}
          {label('s-pc', 'settings.phoneCountry', 'settings.phoneCountryNote')}
          <input
            id="s-pc"
            maxLength={2}
            size={3}
            autoCapitalize="characters"
            pattern="[A-Za-z]{2}"
            value={f.phone_country}
            onInput={text('phone_country')}
            {...form.bind('phone_country', 's-pc')}
          />
          {err('phone_country', 's-pc')}
        </fieldset>
        {!readOnly && (
          <div class="dialog-actions">
            <button
              type="submit"
              class="primary"
              disabled={busy || !dirty}
              aria-describedby={form.errors.form !== null ? 'settings-form-error' : undefined}
            >
              {t('settings.save')}
            </button>
            <button
              type="button"
              disabled={!dirty}
              onClick={() => {
                clear();
                form.reset();
              }}
            >
              {t('settings.discard')}
            </button>
          </div>
        )}
        <FieldError id="settings-form" text={form.errors.form} />
      </form>
    </section>
  );
}
