// The Insights screen, loaded only when opened: Chart.js and the screen are a chunk of their own,
// so the board a counter tablet opens all day never downloads them.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { t } from '../i18n/i18n.ts';

export function Insights() {
  const [Screen, setScreen] = useState<ComponentType | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    import('./insights-screen.tsx').then(
      (m) => setScreen(() => m.InsightsScreen),
      () => setFailed(true),
    );
  }, []);
  if (failed)
    return (
      <p class="field-error" role="alert">
        {t('error.offline')}
      </p>
    );
  return Screen === null ? <p class="boot">{t('insights.loading')}</p> : <Screen />;
}
