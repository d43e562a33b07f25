// Preloaded (`node --import`) into the run-logs process the bench measures: counts the database
// queries that read log lines, for real, at the driver, and reports them with the process's
// memory (after a full GC when asked for `memory` and run with --expose-gc) whenever the parent asks over IPC.
import { getHeapSpaceStatistics } from 'node:v8';
import pg from 'pg';

export interface ProbeReport {
  /** Statements that read `run_log_lines` (catch-up pages and shared reads). */
  logReads: number;
  /** Every statement sent, LISTEN included. */
  queries: number;
  memory: NodeJS.MemoryUsage;
  /** Resident bytes of V8's young generation (new space): an allowance V8 grows under any allocation load, up to a fixed bound. */
  youngGenerationBytes: number;
}

const counts = { logReads: 0, queries: 0 };
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  counts.queries++;
  const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
  if (text?.includes('FROM run_log_lines')) counts.logReads++;
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

process.channel?.unref();
// `memory` collects garbage first (a full GC pauses the process, so the latency samples ask for `counts`).
process.on('message', (message) => {
  if (message === 'memory') (globalThis as { gc?: () => void }).gc?.();
  const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!;
  const report: ProbeReport = {
    ...counts,
    memory: process.memoryUsage(),
    youngGenerationBytes: newSpace.physical_space_size,
  };
  process.send?.(report);
});
