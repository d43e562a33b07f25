import type pg from 'pg';
import { assertDurationWithin } from '../../../base/config/duration-guard.ts';
import { RUN_RETENTION_BOUNDS } from '../../../base/config/run-history-settings.ts';
import type { Database } from '../../../base/database/database.ts';

/** How long finished runs and their logs are kept (RUN_HISTORY_RETENTION, RUN_LOG_RETENTION). */
export interface RetentionPolicy {
  /** A finished run (and its log) is removed this long after it finished. */
  historyMs: number;
  /** A finished run's log is removed this long after the run finished; the run record stays. */
  logMs: number;
}

export interface RetentionOptions {
  /** Runs per statement: each batch is a short transaction over the oldest runs. */
  batchRuns: number;
  /** Rows of run_log_lines per delete when a removed log still had rows (a run not compacted yet). */
  batchLines: number;
}

export const DEFAULT_RETENTION_OPTIONS: RetentionOptions = { batchRuns: 100, batchLines: 10_000 };

/** What a retention pass removed. */
export interface RetentionReport {
  /** Runs whose log was removed (their record says so in `logRemovedAt`). */
  logsRemoved: number;
  /** Runs removed with everything of theirs. */
  runsRemoved: number;
}

/**
 * Marks the oldest finished runs past the log retention as having no log, and deletes their blocks and
 * their plan's JSON (issue 48: the plan's output, kept as long as the log that shows it), in one statement: readers see the whole log, or that it was removed (RunLogRemovedError), never part
 * of it. Runs another process is changing (compacting, removing) are skipped, not waited for.
 */
const REMOVE_LOGS = `
  WITH expired AS (
    SELECT id FROM runs
    WHERE finished_at IS NOT NULL AND log_removed_at IS NULL AND finished_at < now() - $1 * interval '1 millisecond'
    ORDER BY finished_at LIMIT $2
    FOR NO KEY UPDATE SKIP LOCKED
  ), removed AS (
    UPDATE runs SET log_removed_at = date_trunc('milliseconds', now())
    FROM expired WHERE runs.id = expired.id
    RETURNING runs.id
  ), blocks AS (
    DELETE FROM run_log_blocks WHERE run_id IN (SELECT id FROM removed)
  ), plan_json AS (
    DELETE FROM run_plan_json WHERE run_id IN (SELECT id FROM removed)
  )
  SELECT id FROM removed`;

/** The oldest finished runs past the history retention, with what is theirs (ON DELETE CASCADE). */
const REMOVE_RUNS = `
  DELETE FROM runs WHERE id IN (
    SELECT id FROM runs
    WHERE finished_at IS NOT NULL AND finished_at < now() - $1 * interval '1 millisecond'
    ORDER BY finished_at LIMIT $2
    FOR UPDATE SKIP LOCKED)
  RETURNING id`;

/**
 * Enforces RUN_LOG_RETENTION and RUN_HISTORY_RETENTION (docs/run-history.md, "Retention") in small
 * batches, oldest first, judged on the database's clock against the time each run finished. Only
 * finished runs are ever touched: a Pending or Running run has no `finished_at`. Logs go first (with
 * the shorter of the two retentions), so a run removed afterwards takes no large log with it, and
 * the rows of a log that was never compacted are deleted a slice at a time.
 */
export class RunHistoryRetention {
  readonly #database: Database;
  readonly #policy: RetentionPolicy;
  readonly #options: RetentionOptions;

  constructor(database: Database, policy: RetentionPolicy, options: RetentionOptions = DEFAULT_RETENTION_OPTIONS) {
    this.#database = database;
    this.#policy = policy;
    this.#options = options;
  }

  /** Removes every log and run past its retention, a batch at a time; resolves with what it removed. */
  async removeExpired(): Promise<RetentionReport> {
    // Checked again here: a negative or invalid retention would put the cut-off in the future,
    // and every finished run would be "past" it.
    assertDurationWithin('RUN_HISTORY_RETENTION', this.#policy.historyMs, RUN_RETENTION_BOUNDS);
    assertDurationWithin('RUN_LOG_RETENTION', this.#policy.logMs, RUN_RETENTION_BOUNDS);
    const report: RetentionReport = { logsRemoved: 0, runsRemoved: 0 };
    const logMs = Math.min(this.#policy.logMs, this.#policy.historyMs);
    for (;;) {
      const removed = await this.#query<{ id: string }>(REMOVE_LOGS, [logMs, this.#options.batchRuns]);
      for (const { id } of removed) await this.#purgeRows(id);
      report.logsRemoved += removed.length;
      if (removed.length < this.#options.batchRuns) break;
    }
    for (;;) {
      const removed = await this.#query<{ id: string }>(REMOVE_RUNS, [this.#policy.historyMs, this.#options.batchRuns]);
      report.runsRemoved += removed.length;
      if (removed.length < this.#options.batchRuns) break;
    }
    return report;
  }

  /**
   * Deletes the rows of a run whose log was removed (none once it was compacted), a slice at a time.
   * If the process dies meanwhile, the compactor deletes what is left (it looks at every run with rows).
   */
  async #purgeRows(runId: string): Promise<void> {
    for (;;) {
      const { rowCount } = await this.#database.query(
        `DELETE FROM run_log_lines WHERE run_id = $1 AND seq IN (
           SELECT seq FROM run_log_lines WHERE run_id = $1 ORDER BY seq LIMIT $2)`,
        [runId, this.#options.batchLines],
      );
      if ((rowCount ?? 0) < this.#options.batchLines) return;
    }
  }

  async #query<Row extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<Row[]> {
    return (await this.#database.query<Row>(text, values)).rows;
  }
}
