/** What the reader gets once the channel is closed and empty. */
const DONE: IteratorResult<string> = Object.freeze({ value: undefined, done: true });

/**
 * The queue of server-sent-event chunks between producers (log deliveries, timers) and the
 * response stream, bounded by what the client has not read: the chunks queued here plus the one the
 * response stream took last, until it comes back for the next (which it does once the socket
 * drained). A client that keeps up takes a batch of any size; one that stopped reading is refused
 * new batches once more than `maxBytes` waits for it, so at most `maxBytes` plus one batch (plus
 * one final event) is ever held for it.
 */
export class EventChannel implements AsyncIterable<string> {
  readonly #maxBytes: number;
  // Made when first needed: most streams of a live run hold nothing between deliveries (issue 25).
  #queue: Array<{ chunk: string; bytes: number }> | undefined;
  #queuedBytes = 0;
  /** The chunk the response stream took and has not yet asked past: still on its way to the client. */
  #inFlightBytes = 0;
  #closed = false;
  /** The reader's pending `next()`, while nothing was there for it. */
  #waitingReader: ((result: IteratorResult<string>) => void) | undefined;
  #roomWaiters: Array<() => void> | undefined;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes the client has not read: queued, plus the chunk the socket has not drained yet. */
  get unreadBytes(): number {
    return this.#queuedBytes + this.#inFlightBytes;
  }

  /** Queues a chunk; resolves once the queue is within its bound again (at once after close): for producers that can wait. */
  push(chunk: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#enqueue(chunk);
    if (this.#queuedBytes <= this.#maxBytes) return Promise.resolve();
    return new Promise((resolve) => (this.#roomWaiters ??= []).push(resolve));
  }

  /**
   * Queues a chunk unless the client has more than the bound unread already (it is not keeping up):
   * false then. The chunk's own size does not count, so one large batch never cuts off a reader.
   * `bytes`, its UTF-8 length, when the caller knows it (a batch shared by every stream of a run).
   */
  tryPush(chunk: string, bytes?: number): boolean {
    if (this.#closed) return true;
    if (this.unreadBytes > this.#maxBytes) return false;
    this.#enqueue(chunk, bytes);
    return true;
  }

  /** Queues a chunk only if nothing is waiting; for heartbeats, which a backed-up stream does not need. */
  offer(chunk: string): void {
    if (!this.#closed && !this.#queue?.length) this.#enqueue(chunk);
  }

  /** Ends the stream after the chunks already queued and, if given, one last event beyond the bound. */
  close(lastChunk?: string): void {
    if (this.#closed) return;
    if (lastChunk !== undefined) this.#enqueue(lastChunk);
    this.#closed = true;
    this.#wake();
    this.#releaseWaiters();
  }

  /**
   * The chunks in order, then done once closed. Written by hand rather than as an async generator:
   * a live chunk goes to a waiting reader as it is queued, without the generator's own promise and
   * resumption for every chunk of every stream (issue 25: the per-client cost of the fan-out).
   */
  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => this.#next(),
      return: () => Promise.resolve(DONE),
    };
  }

  #next(): Promise<IteratorResult<string>> {
    // Asked for the next chunk: the response stream wrote the last one and the socket drained it.
    this.#inFlightBytes = 0;
    const taken = this.#take();
    if (taken !== undefined) return Promise.resolve(taken);
    return new Promise((resolve) => (this.#waitingReader = resolve));
  }

  /** The next chunk for the reader (now in flight), done once closed and empty, or undefined: nothing yet. */
  #take(): IteratorResult<string> | undefined {
    const next = this.#queue?.shift();
    if (next !== undefined) {
      this.#queuedBytes -= next.bytes;
      this.#inFlightBytes = next.bytes;
      if (this.#queuedBytes <= this.#maxBytes) this.#releaseWaiters();
      return { value: next.chunk, done: false };
    }
    return this.#closed ? DONE : undefined;
  }

  #enqueue(chunk: string, bytes = Buffer.byteLength(chunk)): void {
    (this.#queue ??= []).push({ chunk, bytes });
    this.#queuedBytes += bytes;
    this.#wake();
  }

  /** Hands a waiting reader what there is for it now. */
  #wake(): void {
    const reader = this.#waitingReader;
    if (reader === undefined) return;
    const taken = this.#take();
    if (taken === undefined) return;
    this.#waitingReader = undefined;
    reader(taken);
  }

  #releaseWaiters(): void {
    const waiters = this.#roomWaiters;
    if (waiters === undefined) return;
    this.#roomWaiters = undefined;
    for (const release of waiters) release();
  }
}
