import { useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  reload(): void;
}

/**
 * Loads with `load` when `key` changes, and again every `pollMs` while the page is open (the runs
 * list and a run's header stay live by polling). A failed poll keeps the last data and shows the error.
 */
export function useLoaded<T>(load: () => Promise<T>, key: string, pollMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: number | undefined;
    const once = async () => {
      try {
        const value = await load();
        if (!live) return;
        setData(value);
        setError(undefined);
      } catch (caught) {
        if (live) setError(caught instanceof Error ? caught : new Error(String(caught)));
      }
      if (live && pollMs) timer = window.setTimeout(once, pollMs);
    };
    void once();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [key, generation]);
  useEffect(() => setData(undefined), [key]);
  return { data, error, reload: () => setGeneration((value) => value + 1) };
}
