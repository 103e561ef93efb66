// The numbers of the Insights screen: today at a glance against the same weekday last week, and
// the period's figures beside the period before, as a table (which is also how a screen reader
// hears them).
import { t, type MessageKey } from '../i18n/i18n.ts';
import type { Figures, Summary } from './types.ts';
import { change, count, duration, hourLabel, share, shortDate, type Change } from './format.ts';

type Row = {
  key: string;
  label: MessageKey;
  value: (f: Figures) => number | null;
  show: (v: number | null) => string;
  kind: 'count' | 'seconds' | 'share';
  goodWhen: 'up' | 'down';
};

const c = (v: number | null) => (v === null ? '—' : count(v));

export const ROWS: Row[] = [
  { key: 'created', label: 'insights.created', value: (f) => f.created, show: c, kind: 'count', goodWhen: 'up' },
  { key: 'collected', label: 'insights.collected', value: (f) => f.collected, show: c, kind: 'count', goodWhen: 'up' },
  {
    key: 'prep',
    label: 'insights.prepMedian',
    value: (f) => f.preparation.median_seconds,
    show: duration,
    kind: 'seconds',
    goodWhen: 'down',
  },
  {
    key: 'pickup',
    label: 'insights.pickupMedian',
    value: (f) => f.pickup.median_seconds,
    show: duration,
    kind: 'seconds',
    goodWhen: 'down',
  },
  { key: 'expired', label: 'insights.noShows', value: (f) => f.expired, show: c, kind: 'count', goodWhen: 'down' },
  { key: 'ack', label: 'insights.onMyWay', value: (f) => f.acknowledgement_rate, show: share, kind: 'share', goodWhen: 'up' },
];

const MORE_ROWS: Row[] = [
  { key: 'cancelled', label: 'insights.cancelled', value: (f) => f.cancelled, show: c, kind: 'count', goodWhen: 'down' },
  { key: 'open', label: 'insights.open', value: (f) => f.open, show: c, kind: 'count', goodWhen: 'down' },
  { key: 'prep90', label: 'insights.prepP90', value: (f) => f.preparation.p90_seconds, show: duration, kind: 'seconds', goodWhen: 'down' },
  {
    key: 'prepMax',
    label: 'insights.prepLongest',
    value: (f) => f.preparation.longest_seconds,
    show: duration,
    kind: 'seconds',
    goodWhen: 'down',
  },
  { key: 'pickup90', label: 'insights.pickupP90', value: (f) => f.pickup.p90_seconds, show: duration, kind: 'seconds', goodWhen: 'down' },
  {
    key: 'pickupMax',
    label: 'insights.pickupLongest',
    value: (f) => f.pickup.longest_seconds,
    show: duration,
    kind: 'seconds',
    goodWhen: 'down',
  },
  {
    key: 'rings',
    label: 'insights.ringsPerTicket',
    value: (f) => f.rings_per_ticket,
    show: (v) => (v === null ? '—' : v.toFixed(2)),
    kind: 'count',
    goodWhen: 'down',
  },
  { key: 'calledOut', label: 'insights.calledOut', value: (f) => f.called_out_share, show: share, kind: 'share', goodWhen: 'up' },
  { key: 'snoozed', label: 'insights.snoozed', value: (f) => f.snoozed, show: c, kind: 'count', goodWhen: 'down' },
];

/** The arrow shows which way the number moved; its colour, whether that is better or worse. */
const Delta = ({ d }: { d: Change }) => (
  <span class={`delta delta-${d.tone}`}>
    {d.direction !== 'none' && <span aria-hidden="true">{d.direction === 'up' ? '▲ ' : '▼ '}</span>}
    {d.text}
    {(d.tone === 'better' || d.tone === 'worse') && (
      <span class="sr-only"> ({t(d.tone === 'better' ? 'insights.better' : 'insights.worse')})</span>
    )}
  </span>
);

/** Today so far, each key figure with its change against the same weekday last week up to the same hour. */
export function Glance({ today }: { today: Summary }) {
  const then = today.comparison;
  const against = t('insights.against', { day: shortDate(then.from) });
  return (
    <section class="glance" id="insights-today" aria-labelledby="glance-title">
      <h2 id="glance-title">{t('insights.today', { day: shortDate(today.period.from) })}</h2>
      <p class="lead">{t('insights.todayLead', { day: shortDate(then.from), time: hourLabel((then.through?.hour ?? 23) + 1) })}</p>
      <ul class="glance-cards">
        {ROWS.map((r) => {
          const now = r.value(today.figures);
          const before = r.value(then.figures);
          return (
            <li key={r.key} class="glance-card" data-figure={r.key}>
              <span class="glance-label">{t(r.label)}</span>
              <strong class="glance-value">{r.show(now)}</strong>
              <span class="glance-change">
                <Delta d={change(now, before, r.kind, r.goodWhen)} />{' '}
                <span class="glance-against">
                  {against} ({r.show(before)})
                </span>
              </span>
            </li>
          );
        })}
      </ul>
      <p class="glance-open">{t('insights.openNow', { count: today.figures.open })}</p>
    </section>
  );
}

/** The period's figures beside the comparison period's, every figure the API gives. */
export function PeriodTable({ summary }: { summary: Summary }) {
  const then = summary.comparison;
  return (
    <div class="table-wrap">
      <table class="list keep-columns figures-table" id="insights-period-table">
        <caption>{t('insights.periodCaption', { from: shortDate(summary.period.from), to: shortDate(summary.period.to) })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('insights.figure')}</th>
            <th scope="col">{t('insights.thisPeriod')}</th>
            <th scope="col">{t('insights.previousPeriod', { from: shortDate(then.from, false), to: shortDate(then.to, false) })}</th>
            <th scope="col">{t('insights.change')}</th>
          </tr>
        </thead>
        <tbody>
          {[...ROWS, ...MORE_ROWS].map((r) => {
            const now = r.value(summary.figures);
            const before = r.value(then.figures);
            return (
              <tr key={r.key}>
                <th scope="row">{t(r.label)}</th>
                <td>{r.show(now)}</td>
                <td>{r.show(before)}</td>
                <td>
                  <Delta d={change(now, before, r.kind, r.goodWhen)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
