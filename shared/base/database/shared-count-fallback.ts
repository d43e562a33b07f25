import type { Logger } from '../logging/logger.ts';

/** After the database failed to answer, a count is kept in the process for this long before it is asked again. */
export const DATABASE_RETRY_MS = 5_000;

export interface SharedCountFallbackOptions {
  /** What is counted, for the log: `failed logins`, `run-log streams`, `watches`. */
  counted: string;
  /** What counting in the process means meanwhile, for the log. */
  meanwhile: string;
  logger: Logger;
  /** Told which store counts from now on. */
  onStoreChange?: (store: 'database' | 'process') => void;
  retryMs?: number;
}

/**
 * The state of a count that every instance keeps in the database and each keeps in its process
 * while the database does not answer (issue 36): whether to ask the database now (not for
 * `retryMs` after it failed, so a down database does not cost every request its timeout), and the
 * one log line and store change for each failure and each recovery.
 */
export class SharedCountFallback {
  readonly #options: SharedCountFallbackOptions;
  #failedAt: number | undefined;

  constructor(options: SharedCountFallbackOptions) {
    this.#options = options;
  }

  /** Whether the database should be asked now. */
  get ask(): boolean {
    return this.#failedAt === undefined || Date.now() - this.#failedAt >= (this.#options.retryMs ?? DATABASE_RETRY_MS);
  }

  failed(error: unknown): void {
    const first = this.#failedAt === undefined;
    this.#failedAt = Date.now();
    if (!first) return;
    this.#options.logger.error(
      `${this.#options.counted} are counted in this process only: the database did not answer (${this.#options.meanwhile})`,
      { detail: error instanceof Error ? error.message : String(error) },
    );
    this.#options.onStoreChange?.('process');
  }

  answered(): void {
    if (this.#failedAt === undefined) return;
    this.#failedAt = undefined;
    this.#options.logger.info(`${this.#options.counted} are counted in the database again, shared by every instance`);
    this.#options.onStoreChange?.('database');
  }
}
