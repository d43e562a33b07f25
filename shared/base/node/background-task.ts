/** Work a process does now and then in the background. */
export interface BackgroundTask {
  stop(): void;
}

/**
 * Runs `work` first `firstRunMs` from now (not at start: start-up is busy enough), then every
 * `intervalMs`, on timers that never keep the process alive. A failure goes to `onFailure`; the next
 * turn tries again.
 */
export function repeatInBackground(
  work: () => Promise<unknown>,
  options: { firstRunMs: number; intervalMs: number; onFailure: (error: unknown) => void },
): BackgroundTask {
  const turn = () => void work().catch(options.onFailure);
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    turn();
    interval = setInterval(turn, options.intervalMs);
    interval.unref();
  }, options.firstRunMs);
  first.unref();
  return {
    stop() {
      clearTimeout(first);
      if (interval) clearInterval(interval);
    },
  };
}
