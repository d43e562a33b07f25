/**
 * The queue of server-sent-event chunks between producers (log deliveries, timers) and the
 * response stream, bounded in bytes: what the socket has not taken yet waits here, and never more
 * than `maxBytes` of it (plus one final event).
 */
export class EventChannel implements AsyncIterable<string> {
  readonly #maxBytes: number;
  readonly #queue: string[] = [];
  #bytes = 0;
  #closed = false;
  #wakeReader: (() => void) | undefined;
  #roomWaiters: Array<() => void> = [];

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes queued and not yet taken by the response stream. */
  get bufferedBytes(): number {
    return this.#bytes;
  }

  /** Queues a chunk; resolves once the queue is within its bound again (at once after close): for producers that can wait. */
  push(chunk: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#enqueue(chunk);
    if (this.#bytes <= this.#maxBytes) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  /** Queues a chunk only if it fits within the bound; false when it does not (the client is not keeping up). */
  tryPush(chunk: string): boolean {
    if (this.#closed) return true;
    const bytes = Buffer.byteLength(chunk);
    if (this.#bytes + bytes > this.#maxBytes) return false;
    this.#enqueue(chunk, bytes);
    return true;
  }

  /** Queues a chunk only if nothing is waiting; for heartbeats, which a backed-up stream does not need. */
  offer(chunk: string): void {
    if (!this.#closed && this.#queue.length === 0) this.#enqueue(chunk);
  }

  /** Ends the stream after the chunks already queued and, if given, one last event beyond the bound. */
  close(lastChunk?: string): void {
    if (this.#closed) return;
    if (lastChunk !== undefined) this.#enqueue(lastChunk);
    this.#closed = true;
    this.#wake();
    this.#releaseWaiters();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const chunk = this.#queue.shift();
      if (chunk !== undefined) {
        this.#bytes -= Buffer.byteLength(chunk);
        if (this.#bytes <= this.#maxBytes) this.#releaseWaiters();
        yield chunk;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#wakeReader = resolve));
    }
  }

  #enqueue(chunk: string, bytes = Buffer.byteLength(chunk)): void {
    this.#queue.push(chunk);
    this.#bytes += bytes;
    this.#wake();
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
