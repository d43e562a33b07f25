import type { Database } from '../../../base/database/database.ts';
import type { RunHistorySettings } from '../../../base/config/run-history-settings.ts';
import type { Logger } from '../../../base/logging/logger.ts';
import { DEFAULT_COMPACTION_OPTIONS, RunLogCompactor, type CompactionReport } from '../logs/run-log-compaction.ts';
import { RunHistoryRetention, type RetentionReport } from './run-history-retention.ts';

/** What one pass did. */
export interface MaintenancePass {
  removed: RetentionReport;
  compacted: CompactionReport;
}

/**
 * Keeps run history bounded (docs/run-history.md, "Compaction" and "Retention"): a pass removes the
 * logs past RUN_LOG_RETENTION and the runs past RUN_HISTORY_RETENTION, then compacts the logs of the
 * runs finished RUN_LOG_COMPACTION_DELAY ago. Several replicas doing it at once share the work (each
 * step locks its runs with SKIP LOCKED). What a pass did is logged.
 */
export class RunHistoryMaintenance {
  readonly #database: () => Promise<Database>;
  readonly #settings: RunHistorySettings;
  readonly #logger: Logger;
  #running: Promise<MaintenancePass> | undefined;
  #stopped = false;

  constructor(database: () => Promise<Database>, settings: RunHistorySettings, logger: Logger) {
    this.#database = database;
    this.#settings = settings;
    this.#logger = logger;
  }

  /** One pass now, or the one under way: a slow pass is never joined by a second in the same process. */
  runOnce(): Promise<MaintenancePass> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Ends the pass under way after its current round of runs (the process is closing). */
  stop(): void {
    this.#stopped = true;
  }

  async #pass(): Promise<MaintenancePass> {
    const database = await this.#database();
    // Retention first: a log past its retention is removed, never compacted first (after an upgrade,
    // the history before it).
    const removed = await new RunHistoryRetention(database, {
      historyMs: this.#settings.retentionMs,
      logMs: this.#settings.logRetentionMs,
    }).removeExpired();
    if (removed.logsRemoved + removed.runsRemoved > 0)
      this.#logger.info('run history past its retention removed', { ...removed });
    const compactor = new RunLogCompactor(database, {
      ...DEFAULT_COMPACTION_OPTIONS,
      delayMs: this.#settings.compactionDelayMs,
    });
    const compacted = await compactor.compactDueRuns(() => this.#stopped);
    if (compacted.lines + compacted.purged > 0) this.#logger.info('run logs compacted', { ...compacted });
    return { removed, compacted };
  }
}
