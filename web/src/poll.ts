import { useEffect } from 'preact/hooks';

/**
 * Reads now, and again `everyMs` after each answer while `take` says to go on, until the
 * component leaves or `deps` change; an answer or failure that arrives after that is dropped.
 * A failure stops the reading (the page shows it; a reload starts again).
 */
export function usePolled<T>(
  read: () => Promise<T>,
  take: (data: T) => boolean,
  failed: (failure: unknown) => void,
  everyMs: number,
  deps: unknown[],
): void {
  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = (): Promise<void> =>
      read().then(
        (data) => {
          if (current && take(data)) timer = setTimeout(tick, everyMs);
        },
        (failure: unknown) => {
          if (current) failed(failure);
        },
      );
    void tick();
    return () => {
      current = false;
      clearTimeout(timer);
    };
    // The caller names what the reading depends on, as it would for its own effect.
  }, deps);
}
