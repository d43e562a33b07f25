/** The back-off settings (OutboundSettings). */
export interface RetrySchedule {
  retryBaseMs: number;
  retryMaxMs: number;
}

/**
 * The wait after failed attempt `attempt` (1 for the first): exponential, `retryBaseMs` doubled per attempt up
 * to `retryMaxMs`, with "equal jitter" (between half and all of it), so receivers that fail together are not
 * all tried again at one instant and no wait is shorter than half the schedule. `random` is in [0, 1).
 */
export function retryDelayMs(attempt: number, schedule: RetrySchedule, random: () => number = Math.random): number {
  const exponential = Math.min(schedule.retryMaxMs, schedule.retryBaseMs * 2 ** Math.min(attempt - 1, 40));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}
