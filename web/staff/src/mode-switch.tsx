// Live or test data, as a two-way switch in the top bar. Test mode acts as a test API key does
// (docs/decisions/0003-modes-and-tenancy.md): the screens show and change only test tickets,
// webhook endpoints and displays, and the page turns orange so it is never taken for the counter.
import { useSession } from './session.tsx';
import { t } from './i18n/i18n.ts';

export function ModeSwitch() {
  const { mode, setMode } = useSession();
  return (
    <fieldset class="mode-switch">
      <legend class="sr-only">{t('mode.legend')}</legend>
      {(['live', 'test'] as const).map((m) => (
        <label key={m} class={`mode-option mode-option-${m}`}>
          <input type="radio" name="data-mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
          <span>{t(m === 'live' ? 'mode.live' : 'mode.test')}</span>
        </label>
      ))}
    </fieldset>
  );
}
