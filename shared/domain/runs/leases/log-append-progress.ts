/**
 * What this process knows of each run's log as its chunks are stored, so a chunk that arrived before
 * the chunks it follows (a controller pipelining its appends) waits for them instead of being refused,
 * and is woken once, when the log reaches its first line, not by every chunk stored meanwhile.
 * Chunks stored by another replica are not seen here: waiters also wake after a poll interval.
 */
export class LogAppendProgress {
  readonly #waiters = new Map<string, Set<{ seq: number; wake: () => void }>>();
  /** The chunks of each run this process is appending, by the line after their last: `begin`'s. */
  readonly #inFlight = new Map<string, Map<number, Set<Promise<void>>>>();

  /**
   * A chunk of lines `firstSeq`…`nextSeq - 1` of run `runId` starts in this process: the answer's
   * `before` settles when the chunks of this process ending just before it did (at once when there
   * are none), so a pipelined chunk goes to the database after its predecessor, not before it;
   * call `done` when the chunk is decided, stored or refused.
   */
  begin(runId: string, firstSeq: number, nextSeq: number): { before: Promise<unknown>; done: () => void } {
    let ends = this.#inFlight.get(runId);
    if (!ends) this.#inFlight.set(runId, (ends = new Map()));
    const before = Promise.all(ends.get(firstSeq) ?? []);
    let done = () => {};
    const settled = new Promise<void>((resolve) => (done = resolve));
    let sameEnd = ends.get(nextSeq);
    if (!sameEnd) ends.set(nextSeq, (sameEnd = new Set()));
    sameEnd.add(settled);
    return {
      before,
      done: () => {
        done();
        sameEnd.delete(settled);
        if (sameEnd.size === 0 && ends.get(nextSeq) === sameEnd) ends.delete(nextSeq);
        if (ends.size === 0 && this.#inFlight.get(runId) === ends) this.#inFlight.delete(runId);
      },
    };
  }

  /** Lines of run `runId` up to `nextSeq - 1` are stored: the chunks starting at or before `nextSeq` re-decide. */
  stored(runId: string, nextSeq: number): void {
    for (const waiter of this.#waiters.get(runId) ?? []) if (waiter.seq <= nextSeq) waiter.wake();
  }

  /** Resolves when this process stored run `runId`'s log up to the line before `seq`, or after `ms`. */
  reached(runId: string, seq: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiters = this.#waiters.get(runId);
      if (!waiters) this.#waiters.set(runId, (waiters = new Set()));
      const waiter = {
        seq,
        wake: () => {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (waiters.size === 0) this.#waiters.delete(runId);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, ms);
      waiters.add(waiter);
    });
  }
}
