// The figures every insights answer is made of, a component of the API's document (schemas.ts
// lists it among the shared schemas); the answers around it are in insights-schemas.ts.
import { Type } from 'typebox';
import { Id, Nullable } from './schema-parts.ts';
import { MAX_PERIOD_DAYS, RING_CHANNELS } from '../domain/insight-figures.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Share = (description: string) => Nullable(Type.Number({ minimum: 0, description, examples: [0.62] }));
const Seconds = (description: string) => Nullable(Type.Integer({ minimum: 0, description, examples: [420] }));

const DurationSchema = (what: string) =>
  Type.Object({
    count: Count(`How many ${what} the figures are made of`),
    median_seconds: Seconds(
      'Half took less; estimated within its bucket (15 s below 3 minutes, a fifth of the value above); null without any',
    ),
    p90_seconds: Seconds('Nine in ten took less; estimated like the median'),
    longest_seconds: Seconds('The longest, exactly'),
    mean_seconds: Seconds('The average, exactly'),
  });

const channels = <T extends ReturnType<typeof Count> | ReturnType<typeof Share>>(of: (channel: string) => T) =>
  Type.Object(Object.fromEntries(RING_CHANNELS.map((c) => [c, of(c)])) as Record<(typeof RING_CHANNELS)[number], T>);

export const InsightFiguresSchema = Type.Object(
  {
    created: Count('Tickets created'),
    collected: Count('Tickets collected'),
    cancelled: Count('Tickets cancelled'),
    expired: Count('Tickets that expired: nobody collected them (no-shows)'),
    open: Count('Tickets created in these hours that are still open now'),
    ready: Count('Tickets made ready (each rung at least once)'),
    preparation: DurationSchema('tickets made ready: the time from created to ready'),
    pickup: DurationSchema('tickets collected after being made ready: the time from ready to collected'),
    rings: Count("Rings completed: the ready's, and every ring again, reminder and end of a snooze"),
    rings_per_ticket: Nullable(
      Type.Number({
        minimum: 0,
        description: 'Rings per ticket made ready; 1.0 means every customer came at the first call',
        examples: [1.2],
      }),
    ),
    reached: channels((c) =>
      Count(
        c === 'none'
          ? 'Rings that reached nobody'
          : c === 'unknown'
            ? 'Rings by SMS whose outcome is not known'
            : `Rings whose strongest channel to reach the customer was ${c}`,
      ),
    ),
    reached_share: channels((c) => Share(`Share of the rings reached by ${c}; null without rings`)),
    called_out: Count('Rings a display board called out loud'),
    called_out_share: Share('Share of the rings a board called out; null without rings'),
    acknowledged: Count('Tickets whose customer answered a ring with "On my way"'),
    acknowledgement_rate: Share('acknowledged ÷ ready; null when no ticket was made ready'),
    snoozed: Count('"Need N more minutes" answers'),
  },
  {
    $id: 'InsightFigures',
    description:
      'What happened in some hours of a branch (all its queues, or the one asked for). Counts are of changes in those hours: ' +
      'a ticket created at 11:58 and collected at 12:03 counts as created at 11 and collected at 12.',
  },
);

const LocalDate = (description: string, example: string) => Type.String({ format: 'date', description, examples: [example] });

/** A period of the branch's calendar: what the insights answers cover, and their comparison too. */
export const PeriodSchema = Type.Object({
  from: LocalDate("First day, in the branch's time zone", '2026-11-16'),
  to: LocalDate("Last day, in the branch's time zone", '2026-11-22'),
  days: Type.Integer({ minimum: 1, maximum: MAX_PERIOD_DAYS, examples: [7] }),
});

/**
 * What every insights answer says first: whose figures, over which days. A named component each
 * answer builds on (`allOf`), as the events build on their envelope, instead of four copies
 * (issue 36 item 14).
 */
export const InsightsScopeSchema = Type.Object(
  {
    branch: Id('branch'),
    livemode: Type.Boolean(),
    timezone: Type.String({
      description: "The branch's IANA time zone: days start at its local midnight, hours are its local hours",
      examples: ['Europe/Paris'],
    }),
    queue: Nullable(Type.String({ description: 'The queue asked for; null: all queues', examples: ['A'] })),
    period: PeriodSchema,
  },
  { $id: 'InsightsScope', description: "Whose figures these are, over which days of the branch's calendar" },
);
