// Loading a list for an admin screen; a failure is one readable sentence shown where the list goes.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { problemText } from './field-errors.tsx';

export function useLoad<T>(load: () => Promise<T>): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    load().then(
      (d) => {
        setData(d);
        setError(null);
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 401) return;
        setError(problemText(err));
      },
    );
  }, [load]);
  useEffect(reload, [reload]);
  return { data, error, reload };
}
