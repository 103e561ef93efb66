// The Insights screen's data: today against the same weekday last week, and the chosen period
// (its figures against the period before, by day, by hour, by weekday and hour), read again a
// moment after any ticket of the branch changes, as the board does with GET /v1/stream.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.ts';
import { problemText } from '../ui/field-errors.tsx';
import { useLiveStream } from '../ui/use-live-stream.ts';
import type { ByDay, ByHour, ByWeekdayHour, Summary } from './types.ts';

export type Choice = { from: string; to: string; queue: string };
export type InsightsData = { today: Summary; period: Summary; days: ByDay; hours: ByHour; grid: ByWeekdayHour; at: number };

/** Changes arriving together (a rush) are read once, this long after the first. */
const SETTLE_MS = 1500;

export function useInsights(choice: Choice, todayDate: string) {
  const [data, setData] = useState<InsightsData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);

  const load = useCallback(async () => {
    const ask = ++latest.current;
    const queue = choice.queue === '' ? undefined : choice.queue;
    const period = { from: choice.from, to: choice.to, queue };
    try {
      const [today, summary, days, hours, grid] = await Promise.all([
        call('getInsights', { query: { from: todayDate, to: todayDate, queue, compare: 'week_before' } }),
        call('getInsights', { query: period }),
        call('getInsightsByDay', { query: period }),
        call('getInsightsByHour', { query: period }),
        call('getInsightsByWeekdayHour', { query: period }),
      ]);
      // A slower answer to an earlier choice must not replace the newer one.
      if (ask !== latest.current) return;
      setData({ today, period: summary, days, hours, grid, at: Date.now() });
      setError(null);
    } catch (err) {
      if (ask !== latest.current || (err instanceof ApiError && err.status === 401)) return;
      setError(problemText(err));
    }
  }, [choice.from, choice.to, choice.queue, todayDate]);

  useEffect(() => {
    void load();
  }, [load]);
  const soon = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const live = useLiveStream({
    onReady: () => void load(), // what changed while the stream was down
    onTicket: () => {
      if (soon.current !== undefined) return;
      soon.current = setTimeout(() => {
        soon.current = undefined;
        void load();
      }, SETTLE_MS);
    },
    onStop: () => clearTimeout(soon.current),
  });

  return { data, error, live, reload: load };
}
