import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { parseDurationSetting } from './setting-values.ts';

/** How long run history is kept, and when finished runs' logs are compacted (docs/run-history.md). */
export interface RunHistorySettings {
  /** RUN_HISTORY_RETENTION: a finished run, and its log, is removed this long after it finished (default 365 days). */
  readonly retentionMs: number;
  /** RUN_LOG_RETENTION: a finished run's log is removed this long after the run finished; the run stays (default 90 days). */
  readonly logRetentionMs: number;
  /** RUN_LOG_COMPACTION_DELAY: a finished run's log is compacted once the run has been finished this long (default 1m). */
  readonly compactionDelayMs: number;
}

const HOUR_MS = 3_600_000;
/** A hundred years: any longer is "for ever", and past PostgreSQL's intervals the passes would fail. */
const MAX_MS = 876_000 * HOUR_MS;

/** Reads the run history section of the settings; throws ConfigError naming the bad variable. */
export function loadRunHistorySettings(env: Environment): RunHistorySettings {
  const duration = (variable: string, fallback: string, minMs: number, requirement: string) => {
    const text = env[variable]?.trim() || fallback;
    const ms = parseDurationSetting(variable, text, minMs, requirement);
    if (ms > MAX_MS) throw new ConfigError(variable, `"${text}" is not ${requirement}`);
    return ms;
  };
  const retention = (variable: string, fallback: string) =>
    duration(variable, fallback, HOUR_MS, 'a duration from 1h to 876000h (e.g. 2160h for 90 days)');
  return {
    retentionMs: retention('RUN_HISTORY_RETENTION', `${365 * 24}h`),
    logRetentionMs: retention('RUN_LOG_RETENTION', `${90 * 24}h`),
    compactionDelayMs: duration(
      'RUN_LOG_COMPACTION_DELAY',
      '1m',
      0,
      'a duration up to 876000h such as 1m (0s compacts at the next pass)',
    ),
  };
}
