import { Worker } from 'node:worker_threads';
import { siblingModule } from '../base/node/sibling-module.ts';

/**
 * Compares passwords with bcrypt hashes on a dedicated worker thread, one at a time, with a
 * bounded queue: when the queue is full, `compare` answers `busy` at once instead of queueing
 * more CPU work than the instance can do.
 */
export class PasswordVerifier {
  readonly #maxQueued: number;
  readonly #pending = new Map<number, (matches: boolean) => void>();
  #worker: Worker | undefined;
  #nextId = 0;

  constructor(maxQueued = 32) {
    this.#maxQueued = maxQueued;
  }

  /** True when the password matches; `busy` when too many comparisons are already waiting. */
  async compare(password: string, hash: string): Promise<boolean | 'busy'> {
    if (this.#pending.size >= this.#maxQueued) return 'busy';
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, password, hash });
    });
  }

  async close(): Promise<void> {
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(siblingModule('bcrypt-worker', import.meta.url));
    worker.on('message', ({ id, matches }: { id: number; matches: boolean }) => {
      this.#pending.get(id)?.(matches);
      this.#pending.delete(id);
      // An idle worker must not keep the process alive.
      if (this.#pending.size === 0) worker.unref();
    });
    worker.on('error', () => this.#failAll());
    worker.on('exit', () => {
      this.#failAll();
      this.#worker = undefined;
    });
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #failAll(): void {
    for (const resolve of this.#pending.values()) resolve(false);
    this.#pending.clear();
  }
}
