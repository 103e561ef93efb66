// GET /v1/insights…: the owner's figures (decision 0025), for API keys of the branch and staff
// sessions with the manager or owner role, in the mode of the key or session.
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import type { Services } from '../../../core/ctx.ts';
import {
  readInsightsByDay,
  readInsightsByHour,
  readInsightsByWeekdayHour,
  readInsightsSummary,
  type Scope,
} from '../../../actions/read-insights.ts';
import { exportTickets } from '../../../actions/export-tickets.ts';
import { operation, typed } from '../../operation.ts';
import { Type } from 'typebox';
import {
  EXAMPLE_BY_DAY,
  EXAMPLE_BY_HOUR,
  EXAMPLE_BY_WEEKDAY_HOUR,
  EXAMPLE_CSV,
  EXAMPLE_SUMMARY,
  InsightsByDaySchema,
  InsightsByHourSchema,
  InsightsByWeekdayHourSchema,
  InsightsSummarySchema,
  SeriesQuery,
  SummaryQuery,
} from '../../insights-schemas.ts';
import { ctxFor } from './context.ts';

const WHO = "For an API key of the branch, or a staff session with the manager or owner role; in the key's or the session's mode.";
const PROBLEMS = {
  forbidden: 'A staff session with the staff role: insights are for managers and owners.',
  'validation-failed': 'A date that is not YYYY-MM-DD, `from` after `to`, a period over 366 days, or `week_before` for more than 7 days.',
} as const;

const scopeFields = (s: Scope) => ({
  branch: s.ctx.branchId,
  livemode: s.ctx.mode === 'live',
  timezone: s.timezone,
  queue: s.queue ?? null,
  period: s.period,
});

export function registerInsightRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  app.get(
    '/insights',
    {
      schema: operation({
        operationId: 'getInsights',
        tag: 'Insights',
        summary: "Get a period's figures",
        description:
          'Tickets created, collected, cancelled, expired and still open; preparation and pickup times; rings, how they reached customers, ' +
          '"On my way" and snoozes: for a period of days in the branch\'s time zone (the last 7 by default), all queues or one, and the same figures for ' +
          `a comparison period. Read from rollups kept as tickets change, so a year costs what a week does, whatever the history. ${WHO}`,
        querystring: SummaryQuery,
        answers: { 200: { description: 'The figures and their comparison', schema: InsightsSummarySchema, example: EXAMPLE_SUMMARY } },
        problems: PROBLEMS,
      }),
    },
    async (req) => {
      const r = await readInsightsSummary({ ctx: ctxFor(req, services), input: req.query });
      return { object: 'insights', ...scopeFields(r), figures: r.figures, comparison: r.comparison };
    },
  );

  app.get(
    '/insights/days',
    {
      schema: operation({
        operationId: 'getInsightsByDay',
        tag: 'Insights',
        summary: 'Get the figures day by day',
        description: `The figures of each day of the period (a line or bar chart of volume and times). ${WHO}`,
        querystring: SeriesQuery,
        answers: { 200: { description: 'One entry per day', schema: InsightsByDaySchema, example: EXAMPLE_BY_DAY } },
        problems: PROBLEMS,
      }),
    },
    async (req) => {
      const r = await readInsightsByDay({ ctx: ctxFor(req, services), input: req.query });
      return { object: 'insights.days', ...scopeFields(r), data: r.data };
    },
  );

  app.get(
    '/insights/hours',
    {
      schema: operation({
        operationId: 'getInsightsByHour',
        tag: 'Insights',
        summary: 'Get the figures by hour of the day',
        description: `The figures of each local hour of the day, 0 to 23, over the whole period: when the rush comes, and how preparation and pickup times follow it. ${WHO}`,
        querystring: SeriesQuery,
        answers: { 200: { description: '24 entries', schema: InsightsByHourSchema, example: EXAMPLE_BY_HOUR } },
        problems: PROBLEMS,
      }),
    },
    async (req) => {
      const r = await readInsightsByHour({ ctx: ctxFor(req, services), input: req.query });
      return { object: 'insights.hours', ...scopeFields(r), data: r.data };
    },
  );

  app.get(
    '/insights/weekday_hours',
    {
      schema: operation({
        operationId: 'getInsightsByWeekdayHour',
        tag: 'Insights',
        summary: 'Get the figures by weekday and hour',
        description: `The week as a grid of 7 days × 24 hours over the whole period, for a heatmap of when tickets come. ${WHO}`,
        querystring: SeriesQuery,
        answers: {
          200: { description: '168 entries, Monday 0 h first', schema: InsightsByWeekdayHourSchema, example: EXAMPLE_BY_WEEKDAY_HOUR },
        },
        problems: PROBLEMS,
      }),
    },
    async (req) => {
      const r = await readInsightsByWeekdayHour({ ctx: ctxFor(req, services), input: req.query });
      return { object: 'insights.weekday_hours', ...scopeFields(r), data: r.data };
    },
  );

  app.get(
    '/insights/tickets.csv',
    {
      schema: operation({
        operationId: 'exportInsightsTickets',
        tag: 'Insights',
        summary: "Export a period's tickets as CSV",
        description:
          "One row per ticket created in the period (oldest first) with its times (UTC, and its creation on the branch's clock), queue, " +
          '`external_ref`, preparation and pickup seconds, rings and how the ready ring reached the customer (`channel_used`). No phone number, ' +
          `metadata or customer link. UTF-8 with a byte order mark, comma-separated, CRLF line ends: it opens as is in a spreadsheet. ${WHO}`,
        querystring: SeriesQuery,
        answers: {
          200: {
            description: 'The tickets, as a file to save',
            mediaType: 'text/csv',
            schema: Type.String({ description: 'RFC 4180 CSV with a header row', examples: [EXAMPLE_CSV] }),
          },
        },
        problems: PROBLEMS,
      }),
    },
    async (req, reply) => {
      const { filename, chunks } = await exportTickets({ ctx: ctxFor(req, services), input: req.query });
      reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${filename}"`)
        .header('Cache-Control', 'private, no-store');
      return reply.send(Readable.from(chunks));
    },
  );
}
