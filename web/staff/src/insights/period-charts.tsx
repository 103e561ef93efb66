// The period's four charts: volume by day, preparation and pickup times by hour, the week × hour
// heatmap of when tickets come, and how rings reached customers. Each says in one sentence what
// it shows (the canvas's label, and a line under its title) and keeps its numbers in a table.
import type { ChartConfiguration } from 'chart.js';
import { t } from '../i18n/i18n.ts';
import { ChartCanvas, ChartFigure, COLOURS } from './charts.tsx';
import { chartOf } from '../../../../src/core/channel-catalogue.ts';
import { CHANNELS, type ByDay, type ByHour, type ByWeekdayHour, type Figures } from './types.ts';
import { count, duration, hourLabel, minutes, share, shortDate, weekdayName } from './format.ts';

const busiest = <T,>(items: T[], value: (x: T) => number): T | undefined =>
  items.reduce<T | undefined>((best, x) => (best === undefined || value(x) > value(best) ? x : best), undefined);

export function VolumeByDay({ days }: { days: ByDay }) {
  const top = busiest(days.data, (d) => d.figures.created);
  const total = days.data.reduce((n, d) => n + d.figures.created, 0);
  const reading =
    total === 0
      ? t('insights.noTickets')
      : t('insights.volumeReading', { total: count(total), day: shortDate(top!.date), n: count(top!.figures.created) });
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: days.data.map((d) => shortDate(d.date, days.data.length <= 14)),
      datasets: [
        { label: t('insights.created'), data: days.data.map((d) => d.figures.created), backgroundColor: COLOURS.blue },
        {
          label: t('insights.notCollected'),
          data: days.data.map((d) => d.figures.cancelled + d.figures.expired),
          backgroundColor: COLOURS.orange,
        },
      ],
    },
    options: { scales: { y: { beginAtZero: true, ticks: { precision: 0 } } }, plugins: { legend: { position: 'bottom' } } },
  };
  return (
    <ChartFigure
      id="chart-days"
      title={t('insights.volumeTitle')}
      reading={reading}
      table={
        <table class="list">
          <thead>
            <tr>
              {[
                'insights.day',
                'insights.created',
                'insights.collected',
                'insights.cancelled',
                'insights.noShows',
                'insights.prepMedian',
                'insights.pickupMedian',
              ].map((k) => (
                <th key={k} scope="col">
                  {t(k as 'insights.day')}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.data.map((d) => (
              <tr key={d.date}>
                <th scope="row">{shortDate(d.date)}</th>
                <td>{count(d.figures.created)}</td>
                <td>{count(d.figures.collected)}</td>
                <td>{count(d.figures.cancelled)}</td>
                <td>{count(d.figures.expired)}</td>
                <td>{duration(d.figures.preparation.median_seconds)}</td>
                <td>{duration(d.figures.pickup.median_seconds)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ChartCanvas config={config} label={`${t('insights.volumeTitle')}. ${reading}`} />
    </ChartFigure>
  );
}

/** Hours with anything to show, from the first to the last, so a café's night is not half the chart. */
function activeHours(hours: ByHour): ByHour['data'] {
  const busy = hours.data.filter((h) => h.figures.created + h.figures.ready + h.figures.collected > 0).map((h) => h.hour);
  if (busy.length === 0) return hours.data;
  return hours.data.filter((h) => h.hour >= Math.min(...busy) && h.hour <= Math.max(...busy));
}

export function TimesByHour({ hours }: { hours: ByHour }) {
  const shown = activeHours(hours);
  const slowest = busiest(
    shown.filter((h) => h.figures.preparation.median_seconds !== null),
    (h) => h.figures.preparation.median_seconds!,
  );
  const reading =
    slowest === undefined
      ? t('insights.noTimes')
      : t('insights.timesReading', { hour: hourLabel(slowest.hour), prep: duration(slowest.figures.preparation.median_seconds) });
  const line = (label: string, colour: string, values: Array<number | null>, dashed = false) => ({
    label,
    data: values,
    borderColor: colour,
    backgroundColor: colour,
    borderWidth: dashed ? 2 : 3,
    pointRadius: dashed ? 3 : 4,
    spanGaps: true,
    ...(dashed ? { borderDash: [6, 4] } : {}),
  });
  const config: ChartConfiguration = {
    type: 'line',
    data: {
      labels: shown.map((h) => hourLabel(h.hour)),
      datasets: [
        line(
          t('insights.prepMedian'),
          COLOURS.blue,
          shown.map((h) => minutes(h.figures.preparation.median_seconds)),
        ),
        line(
          t('insights.prepP90'),
          COLOURS.blue,
          shown.map((h) => minutes(h.figures.preparation.p90_seconds)),
          true,
        ),
        line(
          t('insights.pickupMedian'),
          COLOURS.green,
          shown.map((h) => minutes(h.figures.pickup.median_seconds)),
        ),
      ],
    },
    options: {
      scales: { y: { beginAtZero: true, title: { display: true, text: t('insights.minutesAxis') } } },
      plugins: { legend: { position: 'bottom' } },
    },
  };
  return (
    <ChartFigure
      id="chart-hours"
      title={t('insights.timesTitle')}
      reading={reading}
      table={
        <table class="list">
          <thead>
            <tr>
              {[
                'insights.hour',
                'insights.created',
                'insights.prepMedian',
                'insights.prepP90',
                'insights.pickupMedian',
                'insights.pickupP90',
              ].map((k) => (
                <th key={k} scope="col">
                  {t(k as 'insights.hour')}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((h) => (
              <tr key={h.hour}>
                <th scope="row">{hourLabel(h.hour)}</th>
                <td>{count(h.figures.created)}</td>
                <td>{duration(h.figures.preparation.median_seconds)}</td>
                <td>{duration(h.figures.preparation.p90_seconds)}</td>
                <td>{duration(h.figures.pickup.median_seconds)}</td>
                <td>{duration(h.figures.pickup.p90_seconds)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ChartCanvas config={config} label={`${t('insights.timesTitle')}. ${reading}`} />
    </ChartFigure>
  );
}

export function WeekHeatmap({ grid }: { grid: ByWeekdayHour }) {
  const busy = grid.data.filter((c) => c.figures.created > 0).map((c) => c.hour);
  const [first, last] = busy.length === 0 ? [0, 23] : [Math.min(...busy), Math.max(...busy)];
  const cells = grid.data.filter((c) => c.hour >= first && c.hour <= last);
  const max = Math.max(1, ...cells.map((c) => c.figures.created));
  const top = busiest(cells, (c) => c.figures.created);
  const reading =
    top === undefined || top.figures.created === 0
      ? t('insights.noTickets')
      : t('insights.heatReading', { day: weekdayName(top.weekday, 'long'), hour: hourLabel(top.hour), n: count(top.figures.created) });
  const hours = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  const config: ChartConfiguration<'matrix'> = {
    type: 'matrix',
    data: {
      datasets: [
        {
          label: t('insights.created'),
          data: cells.map((c) => ({ x: hourLabel(c.hour), y: weekdayName(c.weekday), v: c.figures.created })),
          // One hue, darker for busier: readable without telling colours apart.
          backgroundColor: (ctx) => `rgba(11, 87, 208, ${0.06 + 0.94 * (((ctx.raw as { v: number } | undefined)?.v ?? 0) / max)})`,
          borderColor: '#ffffff',
          borderWidth: 1,
          width: ({ chart }) => (chart.chartArea?.width ?? 0) / hours.length - 2,
          height: ({ chart }) => (chart.chartArea?.height ?? 0) / 7 - 2,
        },
      ],
    },
    options: {
      scales: {
        x: { type: 'category', labels: hours.map(hourLabel), grid: { display: false } },
        // The first label sits at the bottom of a vertical category axis: Sunday first puts Monday at
        // the top, as a week is read.
        y: { type: 'category', labels: [7, 6, 5, 4, 3, 2, 1].map((d) => weekdayName(d)), offset: true, grid: { display: false } },
      },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: () => '',
            label: (ctx) => {
              const r = ctx.raw as { x: string; y: string; v: number };
              return `${r.y} ${r.x}: ${count(r.v)}`;
            },
          },
        },
      },
    },
  };
  return (
    <ChartFigure
      id="chart-heatmap"
      title={t('insights.heatTitle')}
      reading={reading}
      table={
        <table class="list heat-table">
          <thead>
            <tr>
              <th scope="col">{t('insights.weekday')}</th>
              {hours.map((h) => (
                <th key={h} scope="col">
                  {String(h).padStart(2, '0')}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {[1, 2, 3, 4, 5, 6, 7].map((d) => (
              <tr key={d}>
                <th scope="row">{weekdayName(d, 'long')}</th>
                {hours.map((h) => (
                  <td key={h}>{count(grid.data.find((c) => c.weekday === d && c.hour === h)?.figures.created ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ChartCanvas config={config as unknown as ChartConfiguration} label={`${t('insights.heatTitle')}. ${reading}`} height={300} />
    </ChartFigure>
  );
}

export function ChannelReach({ figures }: { figures: Figures }) {
  // Those the catalogue shows `when-used` (wallet, unknown) only where they happened: a shop
  // without Wallet passes never sees them.
  const shown = CHANNELS.filter((c) => chartOf(c).chart === 'always' || figures.reached[c] > 0);
  const reading =
    figures.rings === 0
      ? t('insights.noRings')
      : t('insights.reachReading', {
          rings: count(figures.rings),
          push: share(figures.reached_share.push),
          page: share(figures.reached_share.page),
          called: share(figures.called_out_share),
        });
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: shown.map((c) => t(`insights.channel.${c}` as 'insights.channel.push')),
      datasets: [
        {
          label: t('insights.shareOfRings'),
          data: shown.map((c) => Math.round((figures.reached_share[c] ?? 0) * 1000) / 10),
          backgroundColor: shown.map((c) => COLOURS[chartOf(c).colour]),
        },
      ],
    },
    options: {
      indexAxis: 'y',
      scales: { x: { beginAtZero: true, max: 100, ticks: { callback: (v) => share(Number(v) / 100) } } },
      plugins: { legend: { display: false } },
    },
  };
  return (
    <ChartFigure
      id="chart-reach"
      title={t('insights.reachTitle')}
      reading={reading}
      table={
        <table class="list">
          <thead>
            <tr>
              <th scope="col">{t('insights.channel')}</th>
              <th scope="col">{t('insights.rings')}</th>
              <th scope="col">{t('insights.shareOfRings')}</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((c) => (
              <tr key={c}>
                <th scope="row">{t(`insights.channel.${c}` as 'insights.channel.push')}</th>
                <td>{count(figures.reached[c])}</td>
                <td>{share(figures.reached_share[c])}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">{t('insights.calledOut')}</th>
              <td>{count(figures.called_out)}</td>
              <td>{share(figures.called_out_share)}</td>
            </tr>
          </tbody>
        </table>
      }
    >
      <ChartCanvas config={config} label={`${t('insights.reachTitle')}. ${reading}`} height={220} />
      <ul class="reach-facts">
        <li>
          {t('insights.ringsPerTicket')}: <strong>{figures.rings_per_ticket === null ? '—' : figures.rings_per_ticket.toFixed(2)}</strong>
        </li>
        <li>
          {t('insights.onMyWay')}: <strong>{share(figures.acknowledgement_rate)}</strong>
        </li>
        <li>
          {t('insights.snoozed')}: <strong>{count(figures.snoozed)}</strong>
        </li>
      </ul>
    </ChartFigure>
  );
}
