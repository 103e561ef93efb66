// The Insights screen's data: today against the same weekday last week, and the chosen period
// (its figures against the period before, by day, by hour, by weekday and hour), read again a
// moment after any ticket of the branch changes, as the board does with GET /v1/stream.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, openStream } from '../api.ts';
import { problemText } from '../ui/field-errors.tsx';
import type { LiveMessage } from '../types.ts';
import type { ByDay, ByHour, ByWeekdayHour, Summary } from './types.ts';

export type Choice = { from: string; to: string; queue: string };
export type InsightsData = { today: Summary; period: Summary; days: ByDay; hours: ByHour; grid: ByWeekdayHour; at: number };
export type LiveState = 'connecting' | 'live' | 'offline';

/** Changes arriving together (a rush) are read once, this long after the first. */
const SETTLE_MS = 1500;

export function useInsights(choice: Choice, todayDate: string) {
  const [data, setData] = useState<InsightsData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState<LiveState>('connecting');
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
  // The stream stays open while the choice changes; it reads with the latest one.
  const current = useRef(load);
  current.current = load;

  useEffect(() => {
    let es: EventSource | null = null;
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let soon: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      es = openStream();
      es.addEventListener('ready', () => {
        setLive('live');
        void current.current(); // what changed while the stream was down
      });
      es.onmessage = (ev: MessageEvent<string>) => {
        const m = JSON.parse(ev.data) as LiveMessage;
        if (m.ticket_id === undefined || soon !== undefined) return;
        soon = setTimeout(() => {
          soon = undefined;
          void current.current();
        }, SETTLE_MS);
      };
      es.onerror = () => {
        setLive('offline');
        if (es?.readyState !== EventSource.CLOSED || stopped) return;
        es.close();
        retry = setTimeout(() => {
          call('getSession').then(
            () => {
              if (!stopped) connect();
            },
            () => {},
          );
        }, 3000);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      clearTimeout(soon);
      es?.close();
    };
  }, []);

  return { data, error, live, reload: load };
}
