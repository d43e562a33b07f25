import { FINAL_PHASES, type Run, type RunLogLine } from '../../shared/domain/runs/run.ts';
import type { StreamEndReason } from '../../shared/base/http/error-catalogue.ts';
import type { RunLogSources } from './run-end-watch.ts';
import { RunLogRemovedError, RunNotFoundError } from '../../shared/domain/runs/run-errors.ts';
import type { Logger } from '../../shared/base/logging/logger.ts';
import { EventChannel } from './event-channel.ts';
import type { RunEnd, RunEndWatch } from './run-end-watch.ts';
import type { CredentialEnd, StreamSession } from '../../shared/domain/streams/stream-sessions.ts';
import { startHeartbeats, stopHeartbeats } from './heartbeats.ts';

/** What EventSource waits before reconnecting (it then sends Last-Event-ID). */
const RECONNECT_DELAY_MS = 3_000;
const RETRY = `retry: ${RECONNECT_DELAY_MS}\n\n`;
const DONE: IteratorResult<string> = Object.freeze({ value: undefined, done: true });

export interface RunLogStreamOptions {
  sources: RunLogSources;
  endWatch: RunEndWatch;
  run: Run;
  /** Lines up to and including this seq were seen already (Last-Event-ID). */
  afterSeq: number;
  /** The stream's hold on its principal's allowance; tells when the credential ends. */
  session: StreamSession;
  signal: AbortSignal | undefined;
  logger: Logger;
  heartbeatMs: number;
  /** Bytes a client may leave unread before new lines tell it to resume instead (RUN_LOG_SEND_BUFFER_BYTES). */
  sendBufferBytes: number;
  /** Told when the client is sent `resume` for reading too slowly (the stream resumes metric). */
  onResume?: () => void;
}

/**
 * The server-sent events of one run's log: each line as an event whose `id` is its seq, a
 * heartbeat comment now and then, and a last event before it closes: `end` with the final phase
 * once the run is over and every line was sent, `expired` when the credential that opened it
 * ends, `resume` when the client fell further behind than the send buffer holds, or `removed` when
 * retention removed the log (or the run) before every line was sent. Stops when the client goes away.
 */
export function runLogEvents(options: RunLogStreamOptions): AsyncIterable<string> {
  return new RunLogEventStream(options);
}

/**
 * One stream's state, as one object: a process holds thousands (issue 25, memory per stream), and
 * its methods are shared on the prototype where a closure per step of each stream cost a function
 * and a share of a large context each. Only the callbacks handed to others are functions of their own.
 *
 * It is its own iterator, written as one rather than an async generator delegating to the
 * channel: each chunk of each stream then costs the channel's promise alone, not a generator's
 * resumption as well (the fan-out's per-client cost). Nothing starts before the first `next()`.
 */
class RunLogEventStream implements AsyncIterableIterator<string> {
  readonly #options: RunLogStreamOptions;
  readonly #channel: EventChannel;
  readonly #chunks: AsyncIterator<string>;
  #lastSeq: number;
  #runEnd: RunEnd | undefined;
  #stopped = false;
  #unsubscribe: (() => Promise<void>) | undefined;
  #stopWatchingEnd: (() => void) | undefined;
  #beating = false;
  #phase: 'new' | 'streaming' | 'finished' = 'new';

  constructor(options: RunLogStreamOptions) {
    this.#options = options;
    this.#channel = new EventChannel(options.sendBufferBytes);
    this.#chunks = this.#channel[Symbol.asyncIterator]();
    this.#lastSeq = options.afterSeq;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<string>> {
    if (this.#phase === 'new') return this.#start();
    if (this.#phase === 'finished') return Promise.resolve(DONE);
    // The channel's own promise, not one chained to it: the channel ends only when #stop closed it,
    // so its `done` needs nothing more done here, and each chunk of each stream costs one promise
    // and one closure fewer (issue 25: the fan-out's per-client cost).
    return this.#chunks.next();
  }

  return(): Promise<IteratorResult<string>> {
    return Promise.resolve(this.#finish());
  }

  // Every way out goes through here: the last event, then nothing more is read for this stream.
  #stop(lastEvent?: string): void {
    this.#channel.close(lastEvent);
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#beating) stopHeartbeats(this.#channel, this.#options.heartbeatMs);
    this.#stopWatchingEnd?.();
    this.#options.session.release();
    void this.#unsubscribe?.();
  }

  // Every way out of the iteration stops the stream.
  #finish(): IteratorResult<string> {
    this.#phase = 'finished';
    this.#stop();
    return DONE;
  }

  async #start(): Promise<IteratorResult<string>> {
    this.#phase = 'streaming';
    const { signal, session } = this.#options;
    signal?.addEventListener('abort', () => this.#stop(), { once: true });
    if (signal?.aborted) return this.#finish();
    try {
      session.onCredentialEnd((end: CredentialEnd) =>
        this.#stop(sseEvent('expired', { ...end, lastEventId: String(this.#lastSeq) })),
      );
      if (!this.#stopped) await this.#follow();
    } catch (error) {
      this.#finish();
      throw error;
    }
    // Also when the stream stopped while it was starting: its last event is queued after this.
    return { value: RETRY, done: false };
  }

  async #follow(): Promise<void> {
    const { sources, run, logger, endWatch, heartbeatMs } = this.#options;
    const unsubscribe = await sources.logs.subscribeToLogLines({
      runId: run.id,
      afterSeq: this.#lastSeq,
      onLines: (lines, live) => this.#onLines(lines, live),
      onError: (error) => {
        if (error instanceof RunLogRemovedError || error instanceof RunNotFoundError) void this.#endRemoved();
        else
          logger.warn('run log stream: delivery failed', {
            runId: run.id,
            detail: error instanceof Error ? error.message : String(error),
          });
      },
    });
    this.#unsubscribe = unsubscribe;
    if (this.#stopped) {
      await unsubscribe();
      return;
    }
    this.#stopWatchingEnd = endWatch.watch(run, (end) => {
      this.#runEnd = end;
      this.#endIfComplete();
    });
    startHeartbeats(this.#channel, heartbeatMs);
    this.#beating = true;
  }

  #endIfComplete(): void {
    const runEnd = this.#runEnd;
    if (runEnd && this.#lastSeq >= runEnd.lastSeq)
      this.#stop(
        sseEvent('end', { phase: runEnd.phase, message: runEnd.message, statusMessage: runEnd.statusMessage }),
      );
  }

  /**
   * Retention removed the run's log (RUN_LOG_RETENTION) or the run itself (RUN_HISTORY_RETENTION)
   * while lines were still to be sent: `removed` says which, and the client must not reconnect. A
   * client that has every line of the ended run gets `end` as usual.
   */
  async #endRemoved(): Promise<void> {
    if (this.#stopped) return;
    const lastEventId = String(this.#lastSeq);
    try {
      const progress = await this.#options.sources.records.getLogProgress(this.#options.run.id);
      if (this.#lastSeq >= progress.lastSeq && FINAL_PHASES.includes(progress.phase)) {
        this.#runEnd = progress;
        this.#endIfComplete();
        return;
      }
      if (progress.logRemovedAt === null) return;
      this.#stop(
        sseEvent('removed', {
          reason: 'LogRemoved' satisfies StreamEndReason,
          message: `the run's log was removed at ${progress.logRemovedAt} (RUN_LOG_RETENTION)`,
          logRemovedAt: progress.logRemovedAt,
          lastEventId,
        }),
      );
    } catch (error) {
      if (!(error instanceof RunNotFoundError)) return;
      this.#stop(
        sseEvent('removed', {
          reason: 'RunRemoved' satisfies StreamEndReason,
          message: 'the run was removed (RUN_HISTORY_RETENTION)',
          lastEventId,
        }),
      );
    }
  }

  #onLines(lines: readonly RunLogLine[], live: boolean): Promise<void> | undefined {
    const channel = this.#channel;
    if (channel.closed) return undefined;
    const lastSeq = this.#lastSeq;
    const fresh = lines[0]!.seq > lastSeq ? lines : lines.filter((line) => line.seq > lastSeq);
    if (fresh.length === 0) return undefined;
    const { events, bytes } = formatLines(fresh);
    if (live && !channel.tryPush(events, bytes)) {
      // Nothing is lost by closing: the lines are in the database, from the last id the client has.
      this.#options.onResume?.();
      this.#stop(
        sseEvent('resume', {
          reason: 'SlowConsumer',
          message: 'the client fell behind; reconnect with Last-Event-ID',
          lastEventId: String(lastSeq),
        }),
      );
      return undefined;
    }
    this.#lastSeq = fresh[fresh.length - 1]!.seq;
    const room = live ? undefined : channel.push(events);
    this.#endIfComplete();
    return room;
  }
}

function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A batch of lines as server-sent events, and their UTF-8 length. */
interface FormattedLines {
  events: string;
  bytes: number;
}

// Live batches are shared by every stream of a run: formatted and measured once, not once per stream.
const formatted = new WeakMap<readonly RunLogLine[], FormattedLines>();

function formatLines(lines: readonly RunLogLine[]): FormattedLines {
  let batch = formatted.get(lines);
  if (batch === undefined) {
    const events = lines.map(formatLine).join('');
    batch = { events, bytes: Buffer.byteLength(events) };
    formatted.set(lines, batch);
  }
  return batch;
}

// A line may itself contain newlines; each part becomes a `data:` field, which EventSource joins with "\n".
function formatLine(line: RunLogLine): string {
  return `id: ${line.seq}\n${line.line
    .split(/\r\n|\r|\n/)
    .map((part) => `data: ${part}`)
    .join('\n')}\n\n`;
}
