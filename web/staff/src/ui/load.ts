// Loading a list for an admin screen, and turning failures into one readable sentence.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';

export function problemText(err: unknown, fallback = 'Something went wrong; try again.'): string {
  if (!(err instanceof ApiError)) return fallback;
  const fields = err.problem.errors?.map((e) => `${e.pointer.replace(/^\//, '').replace(/\//g, '.')} ${e.detail}`) ?? [];
  return fields.length > 0 && err.problem.code === 'validation-failed' ? `${err.problem.detail}` : err.problem.detail;
}

export function useLoad<T>(load: () => Promise<T>): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    load().then((d) => { setData(d); setError(null); }, (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) return;
      setError(problemText(err));
    });
  }, [load]);
  useEffect(reload, [reload]);
  return { data, error, reload };
}
