import type pg from 'pg';
import type { Database } from '../../../base/database/database.ts';
import type { RunLogLine } from '../run.ts';
import { isUuid } from '../records/run-id.ts';
import { RunLogPages } from './run-log-pages.ts';
import { DEFAULT_LISTENER_LIMITS, RunLogListener } from './run-log-listener.ts';
import type { LogLineSubscription, RunLogListenerLimits } from './run-log-listener.ts';

export const MAX_LOG_READ_LIMIT = 5_000;

/**
 * Reading run logs: pages (rows or compacted blocks alike) and live subscriptions (LISTEN/NOTIFY on a
 * connection of its own, made from `connection`, the pool's options).
 */
export class RunLogs {
  readonly #pages: RunLogPages;
  readonly #listener: RunLogListener;

  constructor(
    database: Database,
    connection: pg.ClientConfig,
    listenerLimits: RunLogListenerLimits = DEFAULT_LISTENER_LIMITS,
  ) {
    this.#pages = new RunLogPages((text, values) => database.query(text, values));
    this.#listener = new RunLogListener(
      connection,
      (runId, afterSeq, limit) => this.readLogLines(runId, afterSeq, limit),
      listenerLimits,
    );
  }

  /**
   * Up to `limit` (at most MAX_LOG_READ_LIMIT) log lines of run `runId` with `seq > afterSeq`, in order,
   * whether stored as rows or compacted into blocks. Throws RunNotFoundError when the run does not
   * exist (any more), RunLogRemovedError when RUN_LOG_RETENTION removed its log.
   */
  async readLogLines(runId: string, afterSeq: number, limit: number): Promise<RunLogLine[]> {
    if (!isUuid(runId)) return [];
    return this.#pages.read(runId, afterSeq, Math.min(Math.max(Math.trunc(limit) || 1, 1), MAX_LOG_READ_LIMIT));
  }

  /** Makes sure this process's subscribers of run `runId` get every line up to `lastSeq` (the last of an ended run). */
  expectLogLinesThrough(runId: string, lastSeq: number): void {
    this.#listener.expectLinesThrough(runId, lastSeq);
  }

  /**
   * Delivers the lines of `subscription.runId` after `afterSeq`: those already stored, then new ones
   * as they are appended (LISTEN/NOTIFY). Resolves to the function that ends the subscription.
   */
  subscribeToLogLines(subscription: LogLineSubscription): Promise<() => Promise<void>> {
    return this.#listener.subscribe(subscription);
  }
}
