import type pg from 'pg';
import type { RunHistorySettings } from '../config/run-history-settings.ts';
import type { Logger } from '../logging/logger.ts';
import { repeatInBackground } from '../node/background-task.ts';
import { DEFAULT_COMPACTION_OPTIONS, RunLogCompactor, type CompactionReport } from './run-log-compaction.ts';
import { RunHistoryRetention, type RetentionReport } from './run-history-retention.ts';

/** How often a process keeping run history compacts and enforces retention (any replica may; the rest skip what is taken). */
const MAINTENANCE_INTERVAL_MS = 60_000;
/** The first pass, soon after start (not at start: start-up is busy enough). */
const FIRST_RUN_MS = 60_000;

export interface RunHistoryMaintenance {
  /** One pass now: retention, then compaction of the runs due. */
  runOnce(): Promise<{ compacted: CompactionReport; removed: RetentionReport }>;
  stop(): void;
}

/**
 * Keeps run history bounded (docs/run-history.md, "Compaction" and "Retention"): every minute, logs
 * past RUN_LOG_RETENTION and runs past RUN_HISTORY_RETENTION are removed, then the logs of runs
 * finished RUN_LOG_COMPACTION_DELAY ago are compacted. Several replicas doing it at once share the work
 * (each step locks its runs with SKIP LOCKED). A failure is logged and the next pass tries again.
 */
export function startRunHistoryMaintenance(
  pool: () => Promise<pg.Pool>,
  settings: RunHistorySettings,
  logger: Logger,
  options: { firstRunMs?: number; intervalMs?: number } = {},
): RunHistoryMaintenance {
  let running: Promise<{ compacted: CompactionReport; removed: RetentionReport }> | undefined;
  let stopped = false;
  const pass = async () => {
    const database = await pool();
    // Retention first: a log past its retention is removed, never compacted first (after an upgrade,
    // the history before it).
    const removed = await new RunHistoryRetention(database, {
      historyMs: settings.retentionMs,
      logMs: settings.logRetentionMs,
    }).removeExpired();
    if (removed.logsRemoved + removed.runsRemoved > 0)
      logger.info('run history past its retention removed', { ...removed });
    const compactor = new RunLogCompactor(database, {
      ...DEFAULT_COMPACTION_OPTIONS,
      delayMs: settings.compactionDelayMs,
    });
    const compacted = await compactor.compactDueRuns(() => stopped);
    if (compacted.lines + compacted.purged > 0) logger.info('run logs compacted', { ...compacted });
    return { compacted, removed };
  };
  // One pass at a time in a process: a slow pass is not joined by the next tick.
  const runOnce = () =>
    (running ??= pass().finally(() => {
      running = undefined;
    }));
  const task = repeatInBackground(runOnce, {
    firstRunMs: options.firstRunMs ?? FIRST_RUN_MS,
    intervalMs: options.intervalMs ?? MAINTENANCE_INTERVAL_MS,
    onFailure: (error) =>
      logger.warn('run history maintenance could not run; it is tried again later', {
        detail: error instanceof Error ? error.message : String(error),
      }),
  });
  return {
    runOnce,
    stop() {
      stopped = true;
      task.stop();
    },
  };
}
