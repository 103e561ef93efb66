// Half-filled forms survive an expired session or a reload: they live in sessionStorage (this
// tab only, gone when it closes) until submitted. Password fields are never drafted.
import { useCallback, useState } from 'preact/hooks';

const PREFIX = 'readybell:draft:';

function read<T>(key: string, initial: T): T {
  try {
    const raw = sessionStorage.getItem(PREFIX + key);
    return raw === null ? initial : { ...initial, ...(JSON.parse(raw) as T) };
  } catch {
    return initial;
  }
}

export function useDraft<T extends object>(key: string, initial: T): [T, (patch: Partial<T>) => void, () => void] {
  const [value, setValue] = useState<T>(() => read(key, initial));
  const update = useCallback(
    (patch: Partial<T>) => {
      setValue((prev) => {
        const next = { ...prev, ...patch };
        try {
          sessionStorage.setItem(PREFIX + key, JSON.stringify(next));
        } catch {
          // storage full or disabled: the form still works, it just is not kept
        }
        return next;
      });
    },
    [key],
  );
  const clear = useCallback(() => {
    sessionStorage.removeItem(PREFIX + key);
    setValue(initial);
  }, [key]);
  return [value, update, clear];
}
