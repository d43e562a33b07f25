/**
 * A bounded queue of server-sent-event chunks between producers (log deliveries, timers) and the
 * response stream. `push` resolves once there is room again, which is how a slow client slows
 * the log delivery down instead of filling memory.
 */
export class EventChannel implements AsyncIterable<string> {
  readonly #highWaterMark: number;
  readonly #queue: string[] = [];
  #closed = false;
  #wakeReader: (() => void) | undefined;
  #roomWaiters: Array<() => void> = [];

  constructor(highWaterMark = 64) {
    this.#highWaterMark = highWaterMark;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues a chunk; resolves when the queue is below its high-water mark (at once after close). */
  push(chunk: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#queue.push(chunk);
    this.#wake();
    if (this.#queue.length <= this.#highWaterMark) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  /** Queues a chunk only if there is room; for heartbeats, which a backed-up stream does not need. */
  offer(chunk: string): void {
    if (!this.#closed && this.#queue.length < this.#highWaterMark) void this.push(chunk);
  }

  /** Ends the stream after the chunks already queued. */
  close(): void {
    this.#closed = true;
    this.#wake();
    this.#releaseWaiters();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const chunk = this.#queue.shift();
      if (chunk !== undefined) {
        if (this.#queue.length <= this.#highWaterMark) this.#releaseWaiters();
        yield chunk;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#wakeReader = resolve));
    }
  }

  #wake(): void {
    const wake = this.#wakeReader;
    this.#wakeReader = undefined;
    wake?.();
  }

  #releaseWaiters(): void {
    const waiters = this.#roomWaiters;
    this.#roomWaiters = [];
    for (const release of waiters) release();
  }
}
