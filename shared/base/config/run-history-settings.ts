import type { Environment } from './environment.ts';
import { settingReader } from './setting-values.ts';

/** How long run history is kept, and when finished runs' logs are compacted (docs/run-history.md). */
export interface RunHistorySettings {
  /** RUN_HISTORY_RETENTION: a finished run, and its log, is removed this long after it finished (default 365 days). */
  readonly retentionMs: number;
  /** RUN_LOG_RETENTION: a finished run's log is removed this long after the run finished; the run stays (default 90 days). */
  readonly logRetentionMs: number;
  /** RUN_LOG_COMPACTION_DELAY: a finished run's log is compacted once the run has been finished this long (default 1m). */
  readonly compactionDelayMs: number;
}

/**
 * The bounds the passes check again before they act (run-history-retention.ts): a hundred years is
 * "for ever", and well inside PostgreSQL's intervals and dates, which the cut-offs are computed in.
 */
export const RUN_RETENTION_BOUNDS = { min: '1h', max: '876000h', example: '2160h' } as const;
export const RUN_LOG_COMPACTION_DELAY_BOUNDS = { min: '0s', max: '876000h', example: '1m' } as const;

/** Reads the run history section of the settings; throws ConfigError naming the bad variable. */
export function loadRunHistorySettings(env: Environment): RunHistorySettings {
  const setting = settingReader(env);
  return {
    retentionMs: setting.duration('RUN_HISTORY_RETENTION', { ...RUN_RETENTION_BOUNDS, fallback: `${365 * 24}h` }),
    logRetentionMs: setting.duration('RUN_LOG_RETENTION', { ...RUN_RETENTION_BOUNDS, fallback: `${90 * 24}h` }),
    compactionDelayMs: setting.duration('RUN_LOG_COMPACTION_DELAY', {
      ...RUN_LOG_COMPACTION_DELAY_BOUNDS,
      fallback: '1m',
    }),
  };
}
