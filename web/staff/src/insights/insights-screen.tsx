// Insights (PRODUCT.md §13), for managers and owners: today at a glance against the same weekday
// last week, then the chosen period's figures and charts, all queues or one, live as the board is.
// The charts are drawn by Chart.js; each has its table and a sentence saying what it shows.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, download } from '../api.ts';
import { useSession } from '../session.tsx';
import { problemText } from '../ui/field-errors.tsx';
import { t } from '../i18n/i18n.ts';
import { clock } from '../ui/format.ts';
import { useInsights, type Choice } from './use-insights.ts';
import { Glance, PeriodTable } from './figures.tsx';
import { ChannelReach, TimesByHour, VolumeByDay, WeekHeatmap } from './period-charts.tsx';
import { addDays, shortDate, today as todayIn } from './format.ts';

const PRESETS = [1, 7, 30, 90] as const;
type Preset = (typeof PRESETS)[number] | 'custom';

export function InsightsScreen() {
  const { session } = useSession();
  const tz = session.branch.timezone;
  const today = todayIn(tz);
  const [preset, setPreset] = useState<Preset>(7);
  const [custom, setCustom] = useState({ from: addDays(today, -6), to: today });
  const [queue, setQueue] = useState('');
  const [queues, setQueues] = useState<string[]>([]);
  const [exportError, setExportError] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);

  useEffect(() => {
    call('listQueues').then(
      (l) => setQueues(l.data.map((q) => q.name)),
      () => {},
    );
  }, []);

  const choice: Choice = useMemo(
    () => (preset === 'custom' ? { ...custom, queue } : { from: addDays(today, 1 - preset), to: today, queue }),
    [preset, custom.from, custom.to, queue, today],
  );
  const { data, error, live } = useInsights(choice, today);

  const exportCsv = async () => {
    setExportError(null);
    setExporting(true);
    try {
      const file = await download('exportInsightsTickets', { from: choice.from, to: choice.to, queue: queue === '' ? undefined : queue });
      const a = document.createElement('a');
      a.href = file.href;
      a.download = file.filename;
      a.click();
      setTimeout(() => URL.revokeObjectURL(file.href), 60_000);
    } catch (err) {
      setExportError(problemText(err));
    } finally {
      setExporting(false);
    }
  };

  return (
    <section class="admin insights" aria-labelledby="insights-title">
      <div class="insights-head">
        <h1 id="insights-title">{t('insights.heading')}</h1>
        <p class={`connection connection-${live}`} role="status">
          <span>{t(live === 'live' ? 'insights.live' : live === 'connecting' ? 'board.connecting' : 'insights.offline')}</span>
        </p>
      </div>
      <form class="insights-controls" onSubmit={(e) => e.preventDefault()} aria-label={t('insights.controls')}>
        <label>
          <span>{t('insights.period')}</span>
          <select
            id="insights-period"
            value={String(preset)}
            onChange={(e) => setPreset(e.currentTarget.value === 'custom' ? 'custom' : (Number(e.currentTarget.value) as Preset))}
          >
            {PRESETS.map((p) => (
              <option key={p} value={String(p)}>
                {p === 1 ? t('insights.todayOnly') : t('insights.lastDays', { n: p })}
              </option>
            ))}
            <option value="custom">{t('insights.custom')}</option>
          </select>
        </label>
        {preset === 'custom' && (
          <>
            <label>
              <span>{t('insights.from')}</span>
              <input
                id="insights-from"
                type="date"
                value={custom.from}
                max={custom.to}
                onChange={(e) => setCustom({ ...custom, from: e.currentTarget.value })}
              />
            </label>
            <label>
              <span>{t('insights.to')}</span>
              <input
                id="insights-to"
                type="date"
                value={custom.to}
                min={custom.from}
                onChange={(e) => setCustom({ ...custom, to: e.currentTarget.value })}
              />
            </label>
          </>
        )}
        <label>
          <span>{t('insights.queue')}</span>
          <select id="insights-queue" value={queue} onChange={(e) => setQueue(e.currentTarget.value)}>
            <option value="">{t('insights.allQueues')}</option>
            {queues.map((q) => (
              <option key={q} value={q}>
                {q}
              </option>
            ))}
          </select>
        </label>
        <div class="form-submit">
          <button
            type="button"
            onClick={exportCsv}
            disabled={exporting}
            aria-describedby={exportError !== null ? 'insights-export-error' : undefined}
          >
            {t('insights.export')}
          </button>
          {exportError !== null && (
            <p id="insights-export-error" class="field-error" role="alert">
              {exportError}
            </p>
          )}
        </div>
      </form>
      {error !== null && (
        <p class="field-error" role="alert">
          {t('insights.loadFailed', { detail: error })}
        </p>
      )}
      {data === null ? (
        error === null && <p class="boot">{t('insights.loading')}</p>
      ) : (
        <>
          <Glance today={data.today} />
          <section class="insights-period" aria-labelledby="period-title">
            <h2 id="period-title">
              {t('insights.periodTitle', { from: shortDate(data.period.period.from), to: shortDate(data.period.period.to) })}
            </h2>
            <div class="chart-grid">
              <VolumeByDay days={data.days} />
              <TimesByHour hours={data.hours} />
              <WeekHeatmap grid={data.grid} />
              <ChannelReach figures={data.period.figures} />
            </div>
            <PeriodTable summary={data.period} />
            <p class="hint">
              {t('insights.updated', { time: clock(new Date(data.at).toISOString(), tz) })} {t('insights.howCounted')}
            </p>
          </section>
        </>
      )}
    </section>
  );
}
