import type { Logger } from '../../shared/base/logging/logger.ts';
import { FINAL_PHASES, type Run } from '../../shared/domain/runs/run.ts';
import type { RunLogProgress } from '../../shared/domain/runs/records/run-records.ts';
import type { RunServices } from '../../shared/domain/runs/run-services.ts';

/** What a run-log stream reads: the run's progress (its record) and its log. */
export type RunLogSources = Pick<RunServices, 'records' | 'logs'>;

/** How a run ended: its final phase and message, and the seq of its last log line. */
export type RunEnd = RunLogProgress;

interface WatchedRun {
  listeners: Set<(end: RunEnd) => void>;
  timer: NodeJS.Timeout | undefined;
  ended: RunEnd | undefined;
  checking: boolean;
}

/**
 * Tells every stream of a run in this process when the run has ended, from one phase check per
 * run every `intervalMs` (not one per stream), and has the log listener deliver the run's last
 * lines so that each stream can send them before `event: end`.
 */
export class RunEndWatch {
  readonly #sources: RunLogSources;
  readonly #intervalMs: number;
  readonly #logger: Logger;
  readonly #runs = new Map<string, WatchedRun>();

  constructor(sources: RunLogSources, intervalMs: number, logger: Logger) {
    this.#sources = sources;
    this.#intervalMs = intervalMs;
    this.#logger = logger;
  }

  /** Calls `onEnd` once the run has ended (at once if it is known to have); returns the function that stops watching. */
  watch(run: Run, onEnd: (end: RunEnd) => void): () => void {
    let watched = this.#runs.get(run.id);
    if (!watched) {
      watched = { listeners: new Set(), timer: undefined, ended: undefined, checking: false };
      this.#runs.set(run.id, watched);
      const entry = watched;
      entry.timer = setInterval(() => void this.#check(run.id, entry), this.#intervalMs);
    }
    watched.listeners.add(onEnd);
    if (watched.ended) onEnd(watched.ended);
    else if (FINAL_PHASES.includes(run.phase)) void this.#check(run.id, watched);
    const entry = watched;
    return () => {
      entry.listeners.delete(onEnd);
      if (entry.listeners.size > 0 || this.#runs.get(run.id) !== entry) return;
      clearInterval(entry.timer);
      this.#runs.delete(run.id);
    };
  }

  async #check(runId: string, watched: WatchedRun): Promise<void> {
    if (watched.checking || watched.ended) return;
    watched.checking = true;
    try {
      const progress = await this.#sources.records.getLogProgress(runId);
      if (!FINAL_PHASES.includes(progress.phase)) return;
      watched.ended = progress;
      clearInterval(watched.timer);
      this.#sources.logs.expectLogLinesThrough(runId, progress.lastSeq);
      for (const listener of watched.listeners) listener(progress);
    } catch (error) {
      // A database hiccup is retried at the next check; the streams stay open.
      this.#logger.warn('run log stream: phase check failed', {
        runId,
        detail: error instanceof Error ? error.message : String(error),
      });
    } finally {
      watched.checking = false;
    }
  }
}
