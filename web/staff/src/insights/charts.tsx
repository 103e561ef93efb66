// Charts drawn by Chart.js (bars, lines) and its matrix plugin (the week × hour heatmap), only the
// parts the Insights screen uses, so the chunk stays small; this whole folder is loaded only when
// a manager opens Insights. A chart is an image to a screen reader (role="img" with a sentence
// saying what it shows), and every chart has its table beside it (ChartFigure).
import { useEffect, useRef } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { MatrixController, MatrixElement } from 'chartjs-chart-matrix';
import { t } from '../i18n/i18n.ts';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  Legend,
  MatrixController,
  MatrixElement,
);
// Readable at arm's length on a 10-inch tablet, in the page's own font and ink.
Chart.defaults.font.size = 14;
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';
Chart.defaults.color = '#16181d';
Chart.defaults.borderColor = '#d5d9e2';
// Redrawn on every live update: no animation to sit through (or to catch half-way in a screenshot).
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;

/** Colours with at least 3:1 contrast against white, told apart by more than hue where they meet. */
export const COLOURS = {
  blue: '#0b57d0',
  green: '#0a6b2c',
  orange: '#b45309',
  red: '#b3261e',
  grey: '#5f6675',
  purple: '#6d28d9',
  teal: '#0f766e',
} as const;

export function ChartCanvas({ config, label, height = 260 }: { config: ChartConfiguration; label: string; height?: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  useEffect(() => {
    chart.current = new Chart(canvas.current!, config);
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    const c = chart.current;
    if (c === null) return;
    c.data = config.data;
    c.options = config.options ?? {};
    c.update();
  }, [config]);
  return (
    <div class="chart-box" style={{ height: `${height}px` }}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}

/** A chart with its title, a one-sentence reading, and the same numbers as a table to open. */
export function ChartFigure({
  id,
  title,
  reading,
  table,
  children,
}: {
  id: string;
  title: string;
  reading: string;
  table: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <figure class="chart" id={id} aria-labelledby={`${id}-title`}>
      <figcaption>
        <h2 id={`${id}-title`}>{title}</h2>
        <p class="chart-reading">{reading}</p>
      </figcaption>
      {children}
      <details class="chart-table">
        <summary>{t('insights.showTable')}</summary>
        {/* A named section is a region landmark. */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls sideways, and a keyboard must be able to focus it to scroll it */}
        <section class="table-wrap" tabIndex={0} aria-label={t('insights.tableOf', { title })}>
          {table}
        </section>
      </details>
    </figure>
  );
}
