// The shapes of GET /v1/insights… (decision 0025), with whole examples: a week of a café with two
// queues. The same TypeBox values validate the query and make the reference.
import { Type, type Static, type TProperties } from 'typebox';
import { Nullable, StringEnum } from '../contract/schema-parts.ts';
import { type InsightsScopeSchema, PeriodSchema } from '../contract/insight-figures-schema.ts';
import { QueueName } from '../contract/schemas.ts';
import { RING_CHANNELS } from '../domain/insight-figures.ts';
import { COMPARISONS, DEFAULT_PERIOD_DAYS } from '../actions/read-insights.ts';
import { CSV_COLUMNS } from '../actions/export-tickets.ts';

const LocalDate = (description: string, example: string) => Type.String({ format: 'date', description, examples: [example] });

const Figures = Type.Ref('InsightFigures');

/**
 * An insights answer: the scope every one has (the named `InsightsScope`, by `allOf`), then its
 * own fields. Typed as both together for whoever reads the schema's Static type.
 */
const withScope = <P extends TProperties>(properties: P) => {
  const own = Type.Object(properties);
  return Type.Unsafe<Static<typeof InsightsScopeSchema> & Static<typeof own>>({
    type: 'object',
    allOf: [Type.Ref('InsightsScope')],
    required: own.required,
    properties: own.properties,
  });
};

export const PeriodQuery = {
  from: Type.Optional(
    LocalDate(`First day (YYYY-MM-DD, the branch's calendar); default: ${DEFAULT_PERIOD_DAYS - 1} days before \`to\``, '2026-11-16'),
  ),
  to: Type.Optional(LocalDate("Last day, counted; default: today in the branch's time zone", '2026-11-22')),
  queue: Type.Optional(QueueName),
};

export const SummaryQuery = Type.Object(
  {
    ...PeriodQuery,
    compare: Type.Optional(
      StringEnum(COMPARISONS, {
        default: 'previous_period',
        description:
          '`previous_period`: the days just before, as many; `week_before`: the same dates a week earlier (periods of up to 7 days)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SeriesQuery = Type.Object(PeriodQuery, { additionalProperties: false });

export const InsightsSummarySchema = withScope({
  object: Type.Literal('insights'),
  figures: Figures,
  comparison: Type.Object({
    kind: StringEnum(COMPARISONS),
    ...PeriodSchema.properties,
    through: Nullable(
      Type.Object(
        {
          date: LocalDate("The comparison's day that matches today", '2026-11-15'),
          hour: Type.Integer({ minimum: 0, maximum: 23, examples: [14] }),
        },
        {
          description:
            'While the period is under way, the comparison stops at the same point of its own course: this day, up to the end of this hour',
        },
      ),
    ),
    figures: Figures,
  }),
});

export const InsightsByDaySchema = withScope({
  object: Type.Literal('insights.days'),
  data: Type.Array(
    Type.Object({
      date: LocalDate('A day of the period', '2026-11-16'),
      weekday: Type.Integer({ minimum: 1, maximum: 7, description: '1 Monday … 7 Sunday', examples: [1] }),
      figures: Figures,
    }),
    { description: 'Every day of the period, oldest first, days without activity included' },
  ),
});

export const InsightsByHourSchema = withScope({
  object: Type.Literal('insights.hours'),
  data: Type.Array(Type.Object({ hour: Type.Integer({ minimum: 0, maximum: 23, examples: [12] }), figures: Figures }), {
    description: '24 entries: each local hour of the day (0 is midnight to 1 am) over the whole period',
  }),
});

export const InsightsByWeekdayHourSchema = withScope({
  object: Type.Literal('insights.weekday_hours'),
  data: Type.Array(
    Type.Object({
      weekday: Type.Integer({ minimum: 1, maximum: 7, description: '1 Monday … 7 Sunday', examples: [5] }),
      hour: Type.Integer({ minimum: 0, maximum: 23, examples: [12] }),
      figures: Figures,
    }),
    { description: '168 entries, Monday 0 h to Sunday 23 h: the week as a heatmap, over the whole period' },
  ),
});

const zeros = (n = 0) => Object.fromEntries(RING_CHANNELS.map((c) => [c, n]));

export const EXAMPLE_FIGURES = {
  created: 412,
  collected: 371,
  cancelled: 14,
  expired: 9,
  open: 3,
  ready: 386,
  preparation: { count: 386, median_seconds: 437, p90_seconds: 842, longest_seconds: 2110, mean_seconds: 489 },
  pickup: { count: 371, median_seconds: 96, p90_seconds: 312, longest_seconds: 1805, mean_seconds: 141 },
  rings: 463,
  rings_per_ticket: 1.2,
  reached: { ...zeros(), push: 287, page: 151, sms: 12, none: 13 },
  reached_share: { ...zeros(), push: 0.6199, page: 0.3261, sms: 0.0259, none: 0.0281 },
  called_out: 455,
  called_out_share: 0.9827,
  acknowledged: 241,
  acknowledgement_rate: 0.6244,
  snoozed: 17,
};
const EXAMPLE_SCOPE = {
  branch: 'br_01m81j194tb8kmycb0gheeaj9r',
  livemode: true,
  timezone: 'Europe/Paris',
  queue: null,
  period: { from: '2026-11-16', to: '2026-11-22', days: 7 },
};

export const EXAMPLE_SUMMARY = {
  object: 'insights',
  ...EXAMPLE_SCOPE,
  figures: EXAMPLE_FIGURES,
  comparison: {
    kind: 'previous_period',
    from: '2026-11-09',
    to: '2026-11-15',
    days: 7,
    through: { date: '2026-11-15', hour: 14 },
    figures: { ...EXAMPLE_FIGURES, created: 388, collected: 352, cancelled: 19, expired: 11, open: 0, ready: 366 },
  },
};
export const EXAMPLE_BY_DAY = {
  object: 'insights.days',
  ...EXAMPLE_SCOPE,
  data: [{ date: '2026-11-16', weekday: 1, figures: EXAMPLE_FIGURES }],
};
export const EXAMPLE_BY_HOUR = {
  object: 'insights.hours',
  ...EXAMPLE_SCOPE,
  // One hour of the 24, as the other series show one entry: a quiet hour's nulls are in the schema (issue 36 item 14's 250 KB).
  data: [{ hour: 12, figures: EXAMPLE_FIGURES }],
};
export const EXAMPLE_BY_WEEKDAY_HOUR = {
  object: 'insights.weekday_hours',
  ...EXAMPLE_SCOPE,
  data: [{ weekday: 5, hour: 12, figures: EXAMPLE_FIGURES }],
};

export const EXAMPLE_CSV =
  `${CSV_COLUMNS.join(',')}\r\n` +
  'tk_01m81j19a75aagw39z4av2ch96,A-42,A,collected,1001,2026-11-22T12:00:00.000Z,2026-11-22 13:00:00,2026-11-22T12:09:30.000Z,' +
  '2026-11-22T12:11:02.000Z,,,570,92,1,push,push,2026-11-22T12:00:41.000Z,2026-11-22T12:09:48.000Z\r\n';
