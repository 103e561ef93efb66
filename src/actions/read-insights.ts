// Owner insights (PRODUCT.md §13, decision 0025): a period of the branch's own calendar, its
// figures against a comparison period, and the same figures by day, by hour of day and by
// weekday and hour. Everything is summed from the rollup rows of the period; only the tickets
// still open are read as tickets.
import type { Ctx, Read } from '../core/ctx.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { requireRole } from './roles.ts';
import { getBranch } from '../store/tenancy.ts';
import { openTicketTimes, rollupSums, type Grouping, type RollupRow } from '../store/insights-reads.ts';
import { addDays, daysBetween, localHour, startOfDay, weekday, type LocalHour } from '../domain/local-time.ts';
import { addInto, emptySums, figuresOf, MAX_PERIOD_DAYS, type Figures, type Sums } from '../domain/insight-figures.ts';

/** The default period: the last seven days, today included. */
export const DEFAULT_PERIOD_DAYS = 7;
export const COMPARISONS = ['previous_period', 'week_before'] as const;
export type Comparison = (typeof COMPARISONS)[number];

export type InsightsQuery = { from?: string; to?: string; queue?: string; compare?: Comparison };

export type Period = { from: string; to: string; days: number };

/** Where a comparison stops: the same part of the day as now, when the period is under way. */
export type Through = { date: string; hour: number } | null;

export type Scope = {
  ctx: Ctx;
  timezone: string;
  queue: string | undefined;
  now: LocalHour;
  period: Period;
};

/** The branch's zone and the period asked for, checked; only managers, owners and API keys read insights. */
export async function scopeOf(ctx: Ctx, q: InsightsQuery): Promise<Scope> {
  requireRole(ctx, 'manager');
  const branch = await getBranch(ctx.services.db, ctx.branchId);
  if (branch === undefined) throw new AppError('not-found', 'No such branch.');
  const now = localHour(ctx.services.clock.now(), branch.timezone);
  const to = q.to ?? (q.from !== undefined && q.from > now.day ? q.from : now.day);
  const from = q.from ?? addDays(to, 1 - DEFAULT_PERIOD_DAYS);
  if (from > to) throw invalid('/query/from', `from (${from}) is after to (${to}).`);
  const days = daysBetween(from, to);
  if (days > MAX_PERIOD_DAYS) throw invalid('/query/to', `A period lasts at most ${MAX_PERIOD_DAYS} days; this one has ${days}.`);
  return { ctx, timezone: branch.timezone, queue: q.queue, now, period: { from, to, days } };
}

/** Local day and hour of each ticket created in [from, to] (days of the branch's calendar) still open now. */
async function openTickets(s: Scope, from: string, to: string): Promise<LocalHour[]> {
  const { db } = s.ctx.services;
  const times = await openTicketTimes(
    db,
    s.ctx.branchId,
    s.ctx.mode,
    startOfDay(from, s.timezone),
    startOfDay(addDays(to, 1), s.timezone),
    s.queue,
  );
  return times.map((at) => localHour(at, s.timezone));
}

/** The figures of each group: its summed row, and its open tickets counted by `groupOf`. */
function figuresOfGroups<K>(
  rows: RollupRow[],
  keyOf: (row: RollupRow) => K,
  open: LocalHour[],
  groupOf: (h: LocalHour) => K | undefined,
): (group: K) => Figures {
  const sums = new Map<K, Sums>(rows.map((r) => [keyOf(r), addInto(emptySums(), r)]));
  const opened = new Map<K, number>();
  for (const h of open) {
    const k = groupOf(h);
    if (k !== undefined) opened.set(k, (opened.get(k) ?? 0) + 1);
  }
  return (group) => figuresOf(sums.get(group) ?? emptySums(), opened.get(group) ?? 0);
}

const range = (s: Scope, from = s.period.from, to = s.period.to, through: { day: string; hour: number } | null = null) => ({
  from,
  to,
  queue: s.queue,
  through,
});

export type InsightsSummary = {
  period: Period;
  figures: Figures;
  comparison: Period & { kind: Comparison; through: Through; figures: Figures };
};

/**
 * The period's figures and those of the comparison period: the period just before (as long), or
 * with `week_before` the same dates a week earlier (periods of up to 7 days, so "today against the
 * same weekday last week"). While the period is under way, the comparison stops at the same day
 * and hour of its own course: today so far is compared with that day up to the same hour.
 */
export const readInsightsSummary: Read<InsightsQuery, Scope & InsightsSummary> = async ({ ctx, input: q }) => {
  const s = await scopeOf(ctx, q);
  const kind = q.compare ?? 'previous_period';
  const { from, to, days } = s.period;
  if (kind === 'week_before' && days > 7)
    throw invalid('/query/compare', `week_before compares periods of up to 7 days; this one has ${days}.`);
  const shift = kind === 'week_before' ? 7 : days;
  const cFrom = addDays(from, -shift);
  const cTo = addDays(to, -shift);
  const underway = from <= s.now.day && s.now.day <= to;
  const through: Through = underway ? { date: addDays(s.now.day, -shift), hour: s.now.hour } : null;
  const { db } = ctx.services;
  const cut = through === null ? null : { day: through.date, hour: through.hour };
  const [now, then, open] = await Promise.all([
    rollupSums(db, ctx.branchId, ctx.mode, range(s), 'period'),
    rollupSums(db, ctx.branchId, ctx.mode, range(s, cFrom, cTo, cut), 'period'),
    // The two periods may overlap (week_before): a ticket may count in both.
    openTickets(s, cFrom < from ? cFrom : from, to),
  ]);
  const inComparison = ({ day, hour }: LocalHour) =>
    day >= cFrom && day <= cTo && (cut === null || day < cut.day || (day === cut.day && hour <= cut.hour));
  return {
    ...s,
    figures: figuresOf(addInto(emptySums(), now[0] ?? {}), open.filter(({ day }) => day >= from && day <= to).length),
    comparison: {
      kind,
      from: cFrom,
      to: cTo,
      days,
      through,
      figures: figuresOf(addInto(emptySums(), then[0] ?? {}), open.filter(inComparison).length),
    },
  };
};

export type DayFigures = { date: string; weekday: number; figures: Figures };
export type HourFigures = { hour: number; figures: Figures };
export type WeekdayHourFigures = { weekday: number; hour: number; figures: Figures };

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7];

/**
 * The period's scope, and the figures of each of its groups: the rollup rows grouped `by`, keyed
 * by `keyOf`, and the tickets still open counted by `groupOf`, keyed alike.
 */
async function groupedFigures<K>(
  ctx: Ctx,
  q: InsightsQuery,
  { by, keyOf, groupOf }: { by: Exclude<Grouping, 'period'>; keyOf: (row: RollupRow) => K; groupOf: (h: LocalHour) => K },
): Promise<{ s: Scope; of: (group: K) => Figures }> {
  const s = await scopeOf(ctx, q);
  const [rows, open] = await Promise.all([
    rollupSums(ctx.services.db, ctx.branchId, ctx.mode, range(s), by),
    openTickets(s, s.period.from, s.period.to),
  ]);
  return { s, of: figuresOfGroups(rows, keyOf, open, groupOf) };
}

/** One entry per date of the period, days without any activity included. */
export const readInsightsByDay: Read<InsightsQuery, Scope & { data: DayFigures[] }> = async ({ ctx, input: q }) => {
  const { s, of } = await groupedFigures(ctx, q, { by: 'day', keyOf: (r) => String(r.day), groupOf: (h) => h.day });
  const data = Array.from({ length: s.period.days }, (_, i) => {
    const date = addDays(s.period.from, i);
    return { date, weekday: weekday(date), figures: of(date) };
  });
  return { ...s, data };
};

/** Hours 0 to 23 of the branch's day, over the whole period. */
export const readInsightsByHour: Read<InsightsQuery, Scope & { data: HourFigures[] }> = async ({ ctx, input: q }) => {
  const { s, of } = await groupedFigures(ctx, q, { by: 'hour', keyOf: (r) => Number(r.hour), groupOf: (h) => h.hour });
  return { ...s, data: HOURS.map((hour) => ({ hour, figures: of(hour) })) };
};

/** The week as a grid: Monday (1) to Sunday (7), each hour 0 to 23, over the whole period. */
export const readInsightsByWeekdayHour: Read<InsightsQuery, Scope & { data: WeekdayHourFigures[] }> = async ({ ctx, input: q }) => {
  const { s, of } = await groupedFigures(ctx, q, {
    by: 'weekday_hour',
    keyOf: (r) => Number(r.weekday) * 100 + Number(r.hour),
    groupOf: (h) => weekday(h.day) * 100 + h.hour,
  });
  const data = WEEKDAYS.flatMap((wd) => HOURS.map((hour) => ({ weekday: wd, hour, figures: of(wd * 100 + hour) })));
  return { ...s, data };
};
