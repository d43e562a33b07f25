/** Where a batch goes: process.stdout, or anything with the same write. */
export interface LineSink {
  write(chunk: string): unknown;
}

export interface BatchedLineWriterOptions {
  /** A batch this large is handed over at once. */
  maxBatchBytes?: number;
  /** The longest a line waits in the batch. */
  maxDelayMs?: number;
}

/**
 * Collects log lines and hands them to the sink in batches: one write per batch instead of one
 * blocking write per line (stdout on a pipe is synchronous on Linux, and the request line was
 * half the cost of a request). `flush()` hands over what is pending at once; the process flushes
 * on exit, so no line is lost on SIGTERM or process.exit.
 */
export class BatchedLineWriter {
  readonly #sink: LineSink;
  readonly #maxBatchBytes: number;
  readonly #maxDelayMs: number;
  #pending: string[] = [];
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(sink: LineSink, options: BatchedLineWriterOptions = {}) {
    this.#sink = sink;
    this.#maxBatchBytes = options.maxBatchBytes ?? 32_768;
    this.#maxDelayMs = options.maxDelayMs ?? 1_000;
  }

  write(line: string): void {
    this.#pending.push(line);
    this.#pendingBytes += line.length + 1;
    if (this.#pendingBytes >= this.#maxBatchBytes) {
      this.flush();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.flush(), this.#maxDelayMs);
      // A pending batch never keeps the process alive; the exit hook writes it.
      this.#timer.unref();
    }
  }

  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#pending.length === 0) return;
    const batch = `${this.#pending.join('\n')}\n`;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#sink.write(batch);
  }
}

let stdoutWriter: BatchedLineWriter | undefined;

/** The process's one batched writer to stdout, flushed on exit (stdout writes to files and pipes are synchronous there). */
export function stdoutLines(): BatchedLineWriter {
  if (stdoutWriter === undefined) {
    const writer = new BatchedLineWriter(process.stdout);
    process.on('exit', () => writer.flush());
    stdoutWriter = writer;
  }
  return stdoutWriter;
}

/** Hands every pending stdout log line over now (before a drain ends the process). */
export function flushStdoutLines(): void {
  stdoutWriter?.flush();
}
