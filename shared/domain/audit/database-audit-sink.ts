import { isConnectionFailure } from '../../base/database/database-unavailable-error.ts';
import type { Logger } from '../../base/logging/logger.ts';
import type { AuditEvent } from './audit-event.ts';
import type { BlockingAuditSink } from './audit-recorder.ts';
import type { AuditStore, SerialisedAuditEvent } from './audit-store.ts';

export interface DatabaseAuditSinkOptions {
  /** At most this many events wait for the database; beyond, the oldest are dropped and counted. */
  bufferEvents: number;
  logger: Logger;
  /** The longest an event waits before its batch is written. */
  flushIntervalMs?: number;
  /** Events written per statement. */
  batchSize?: number;
}

/**
 * Writes audit events to PostgreSQL in batches, off the request's path: `write` only queues, a
 * timer (or a full batch) writes. While the database is down the queue keeps at most
 * `bufferEvents` events; what it must drop it counts (`dropped`) and reports in one log line per
 * failed write, so an operator knows how much of the trail is missing and when.
 */
export class DatabaseAuditSink implements BlockingAuditSink {
  readonly #store: () => Promise<AuditStore>;
  readonly #bufferEvents: number;
  readonly #logger: Logger;
  readonly #flushIntervalMs: number;
  readonly #batchSize: number;
  #queue: SerialisedAuditEvent[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #dropped = 0;
  #reportedDropped = 0;

  constructor(store: () => Promise<AuditStore>, options: DatabaseAuditSinkOptions) {
    this.#store = store;
    this.#bufferEvents = options.bufferEvents;
    this.#logger = options.logger;
    this.#flushIntervalMs = options.flushIntervalMs ?? 1_000;
    this.#batchSize = options.batchSize ?? 500;
  }

  /** Events dropped since the process started: the buffer was full while the database was down. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Events waiting to be written. */
  get pending(): number {
    return this.#queue.length;
  }

  write(event: AuditEvent, json: string): void {
    // The event's JSON and time only: the event's own objects, kept for up to a second, would be
    // promoted to the old generation and traced by its collections until the batch is written.
    this.#queue.push({ stageTimestamp: event.stageTimestamp, json });
    this.#trim();
    if (this.#queue.length >= this.#batchSize) void this.#write('full batches');
    else this.#schedule();
  }

  /** Writes an event now and resolves once it is stored; throws when it cannot be (AUDIT_MODE=blocking). */
  async writeNow(event: AuditEvent, json: string): Promise<void> {
    try {
      await (await this.#store()).insertSerialised([{ stageTimestamp: event.stageTimestamp, json }]);
    } catch (error) {
      // The client is told only that the write was refused; the operator learns why.
      this.#logger.warn(
        'an audit event could not be stored before a write (AUDIT_MODE=blocking): the write is refused',
        {
          detail: error instanceof Error ? error.message : String(error),
        },
      );
      throw error;
    }
  }

  /** Writes everything queued, batch by batch; a failed batch goes back to the queue (bounded) for the next try. */
  async flush(): Promise<void> {
    // A write of full batches only may be under way: everything is written after it.
    while (this.#flushing) await this.#flushing;
    await this.#write('everything');
  }

  /**
   * Writes what is queued: everything (the timer, `flush`), or only full batches (a write that filled
   * one), leaving the rest for the timer. Under steady load every statement then carries a full
   * batch: writing on while anything was queued sent statements of what had gathered during the
   * previous one's round trip, a fraction of a batch, each with its fixed cost in this process
   * (issue 22, item 6).
   */
  #write(what: 'everything' | 'full batches'): Promise<void> {
    this.#flushing ??= this.#drain(what === 'everything' ? 1 : this.#batchSize).finally(() => {
      this.#flushing = undefined;
      if (this.#queue.length > 0) this.#schedule();
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
    if (this.#queue.length > 0) {
      this.#logger.warn('audit events not written to the database at shutdown', { events: this.#queue.length });
    }
  }

  async #drain(leastBatch: number): Promise<void> {
    while (this.#queue.length >= leastBatch) {
      const batch = this.#queue.splice(0, this.#batchSize);
      try {
        await (await this.#store()).insertSerialised(batch);
      } catch (error) {
        if (isConnectionFailure(error) || isUnavailable(error)) {
          this.#queue.unshift(...batch);
          this.#trim();
          this.#report(error);
          return;
        }
        // A batch the database refuses for what it holds would be refused forever: it is dropped, and said.
        this.#dropped += batch.length;
        this.#report(error);
      }
    }
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#flushing !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#flushIntervalMs);
    // A pending batch never keeps the process alive; close() writes it.
    this.#timer.unref();
  }

  #trim(): void {
    const excess = this.#queue.length - this.#bufferEvents;
    if (excess <= 0) return;
    this.#queue.splice(0, excess);
    this.#dropped += excess;
  }

  #report(error: unknown): void {
    this.#logger.warn('audit events could not be written to the database', {
      detail: error instanceof Error ? error.message : String(error),
      waiting: this.#queue.length,
      droppedSinceLastReport: this.#dropped - this.#reportedDropped,
      droppedTotal: this.#dropped,
    });
    this.#reportedDropped = this.#dropped;
  }
}

/** The run database's own 503 (not configured, cannot be opened): the database is not there to write to. */
function isUnavailable(error: unknown): boolean {
  return (error as { status?: number }).status === 503;
}
