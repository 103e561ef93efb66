// The branch's escalation ladder (decision 0032) in the settings form: off, the reminder settings
// above decide; on, up to 5 steps, each its time after the ready and its channels. A step that
// texts needs the business plan (the choices are disabled without it; the server refuses them too).
import { Fragment } from 'preact';
import type { EscalationStep } from '../types.ts';
import { t, type MessageKey } from '../i18n/i18n.ts';
import { channelDeclaration, LADDER_CHANNELS, type LadderChannel, type PaidChannel } from '../../../../src/core/channel-catalogue.ts';

export type LadderStep = EscalationStep;

export const MAX_STEPS = 5;

/**
 * Every channel a step has a box for, from the server's catalogue (decision 0074), in the API's
 * order: what the reminder settings ring (decision 0071), a new step's start.
 */
const ALL_CHANNELS = LADDER_CHANNELS;

/** The ladder the reminder settings make, the starting point when the ladder is turned on. */
export function ladderFromReminders(delay: number, count: number, smsPlan: boolean): LadderStep[] {
  return Array.from({ length: Math.min(Math.max(count, 1), MAX_STEPS) }, (_, i) => ({
    after_seconds: delay * (i + 1),
    channels: [...ALL_CHANNELS],
    sms: smsPlan ? 'fallback' : 'never',
    call_out: true,
  }));
}

type Props = {
  ladder: LadderStep[] | null;
  smsPlan: boolean;
  /** The paid channels the branch has on (SMS, WhatsApp): the step's paid setting names them. */
  paidOn: readonly PaidChannel[];
  reminders: { delay: number; count: number };
  onChange: (ladder: LadderStep[] | null) => void;
  invalid: boolean;
};

export function EscalationLadder({ ladder, smsPlan, paidOn, reminders, onChange, invalid }: Props) {
  // One setting covers every paid channel (decision 0091); its label names those that are on.
  const paidLabel = paidOn.length === 0 ? t('ladder.sms') : paidOn.map((c) => t(`ladder.${c}` as MessageKey)).join(' / ');
  const set = (i: number, change: Partial<LadderStep>) => onChange(ladder!.map((s, j) => (j === i ? { ...s, ...change } : s)));
  const toggle = (i: number, channel: LadderChannel, on: boolean) => {
    const channels = ladder![i]!.channels.filter((c: LadderStep['channels'][number]) => c !== channel);
    set(i, { channels: on ? ALL_CHANNELS.filter((c) => c === channel || channels.includes(c)) : channels });
  };
  const add = () => {
    const last = ladder!.at(-1)?.after_seconds ?? 0;
    onChange([...ladder!, { after_seconds: last + 60, channels: [...ALL_CHANNELS], sms: 'never', call_out: true }]);
  };
  return (
    <div class="ladder" id="s-ladder" aria-invalid={invalid || undefined} aria-describedby={invalid ? 's-ladder-error' : undefined}>
      <label class="check">
        <input
          type="checkbox"
          checked={ladder !== null}
          onChange={(e) =>
            onChange((e.currentTarget as HTMLInputElement).checked ? ladderFromReminders(reminders.delay, reminders.count, smsPlan) : null)
          }
        />{' '}
        {t('ladder.use')}
      </label>
      {ladder !== null && (
        <ol class="ladder-steps">
          {ladder.map((s, i) => (
            <li key={i}>
              <fieldset>
                <legend>{t('ladder.step', { number: i + 1 })}</legend>
                <label for={`s-ls-${i}`}>{t('ladder.after')}</label>
                <input
                  id={`s-ls-${i}`}
                  type="number"
                  min={30}
                  max={7200}
                  step={1}
                  required
                  value={s.after_seconds}
                  onInput={(e) => set(i, { after_seconds: Number((e.currentTarget as HTMLInputElement).value) })}
                />
                {ALL_CHANNELS.map((c) => {
                  const hint = channelDeclaration(c).ladder.hint === true ? `s-l${c}-hint-${i}` : undefined;
                  return (
                    <Fragment key={c}>
                      <label class="check">
                        <input
                          type="checkbox"
                          checked={s.channels.includes(c)}
                          aria-describedby={hint}
                          onChange={(e) => toggle(i, c, (e.currentTarget as HTMLInputElement).checked)}
                        />{' '}
                        {t(`ladder.${c}` as MessageKey)}
                      </label>
                      {hint !== undefined && (
                        <p class="hint" id={hint}>
                          {t(`ladder.${c}Hint` as MessageKey)}
                        </p>
                      )}
                    </Fragment>
                  );
                })}
                <label class="check">
                  <input
                    type="checkbox"
                    checked={s.call_out}
                    onChange={(e) => set(i, { call_out: (e.currentTarget as HTMLInputElement).checked })}
                  />{' '}
                  {t('ladder.callOut')}
                </label>
                <label for={`s-lsms-${i}`}>{paidLabel}</label>
                <select
                  id={`s-lsms-${i}`}
                  value={s.sms}
                  onChange={(e) => set(i, { sms: (e.currentTarget as HTMLSelectElement).value as LadderStep['sms'] })}
                >
                  <option value="never">{t('ladder.smsNever')}</option>
                  <option value="fallback" disabled={!smsPlan}>
                    {t('ladder.smsFallback')}
                  </option>
                  <option value="always" disabled={!smsPlan}>
                    {t('ladder.smsAlways')}
                  </option>
                </select>
                <button type="button" onClick={() => onChange(ladder.filter((_, j) => j !== i))}>
                  {t('ladder.remove')}
                </button>
              </fieldset>
            </li>
          ))}
        </ol>
      )}
      {ladder !== null && (
        <button type="button" disabled={ladder.length >= MAX_STEPS} onClick={add}>
          {t('ladder.add')}
        </button>
      )}
    </div>
  );
}
