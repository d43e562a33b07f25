import type { Run, RunLogLine } from '../../shared/runs/run.ts';
import type { RunStore } from '../../shared/runs/run-store.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { EventChannel } from './event-channel.ts';
import type { RunEnd, RunEndWatch } from './run-end-watch.ts';
import type { CredentialEnd, StreamSession } from '../../shared/streams/stream-sessions.ts';
import { startHeartbeats, stopHeartbeats } from './heartbeats.ts';

/** What EventSource waits before reconnecting (it then sends Last-Event-ID). */
const RECONNECT_DELAY_MS = 3_000;
const RETRY = `retry: ${RECONNECT_DELAY_MS}\n\n`;
const DONE: IteratorResult<string> = Object.freeze({ value: undefined, done: true });

export interface RunLogStreamOptions {
  store: RunStore;
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
 * ends, or `resume` when the client fell further behind than the send buffer holds. Stops when
 * the client goes away.
 */
export function runLogEvents(options: RunLogStreamOptions): AsyncIterable<string> {
  const { store, run, logger, session } = options;
  const channel = new EventChannel(options.sendBufferBytes);
  let lastSeq = options.afterSeq;
  let runEnd: RunEnd | undefined;
  let stopped = false;
  let unsubscribe: () => Promise<void> = async () => {};
  let stopWatchingEnd = () => {};
  let beating = false;
  // Every way out goes through here: the last event, then nothing more is read for this stream.
  const stop = (lastEvent?: string) => {
    channel.close(lastEvent);
    if (stopped) return;
    stopped = true;
    if (beating) stopHeartbeats(channel, options.heartbeatMs);
    stopWatchingEnd();
    session.release();
    void unsubscribe();
  };
  const endIfComplete = () => {
    if (runEnd && lastSeq >= runEnd.lastSeq)
      stop(sseEvent('end', { phase: runEnd.phase, message: runEnd.message, statusMessage: runEnd.statusMessage }));
  };
  const onLines = (lines: readonly RunLogLine[], live: boolean): Promise<void> | undefined => {
    if (channel.closed) return undefined;
    const fresh = lines[0]!.seq > lastSeq ? lines : lines.filter((line) => line.seq > lastSeq);
    if (fresh.length === 0) return undefined;
    const { events, bytes } = formatLines(fresh);
    if (live && !channel.tryPush(events, bytes)) {
      // Nothing is lost by closing: the lines are in the database, from the last id the client has.
      options.onResume?.();
      stop(
        sseEvent('resume', {
          reason: 'SlowConsumer',
          message: 'the client fell behind; reconnect with Last-Event-ID',
          lastEventId: String(lastSeq),
        }),
      );
      return undefined;
    }
    lastSeq = fresh[fresh.length - 1]!.seq;
    const room = live ? undefined : channel.push(events);
    endIfComplete();
    return room;
  };
  const onCredentialEnd = (end: CredentialEnd) => stop(sseEvent('expired', { ...end, lastEventId: String(lastSeq) }));

  // Written as an iterator rather than an async generator delegating to the channel: each chunk of
  // each stream then costs the channel's promise alone, not a generator's resumption as well
  // (issue 25: the fan-out's per-client cost). Nothing starts before the first `next()`.
  const chunks = channel[Symbol.asyncIterator]();
  let phase: 'new' | 'streaming' | 'finished' = 'new';
  // Every way out of the iteration stops the stream.
  const finish = (): IteratorResult<string> => {
    phase = 'finished';
    stop();
    return DONE;
  };
  const start = async (): Promise<IteratorResult<string>> => {
    phase = 'streaming';
    options.signal?.addEventListener('abort', () => stop(), { once: true });
    if (options.signal?.aborted) return finish();
    try {
      session.onCredentialEnd(onCredentialEnd);
      if (!stopped) await follow();
    } catch (error) {
      finish();
      throw error;
    }
    // Also when the stream stopped while it was starting: its last event is queued after this.
    return { value: RETRY, done: false };
  };
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        if (phase === 'new') return start();
        if (phase === 'finished') return Promise.resolve(DONE);
        return chunks.next().then((result) => (result.done ? finish() : result));
      },
      return: () => Promise.resolve(finish()),
    }),
  };

  async function follow(): Promise<void> {
    unsubscribe = await store.subscribeToLogLines({
      runId: run.id,
      afterSeq: lastSeq,
      onLines,
      onError: (error) =>
        logger.warn('run log stream: delivery failed', {
          runId: run.id,
          detail: error instanceof Error ? error.message : String(error),
        }),
    });
    if (stopped) {
      await unsubscribe();
      return;
    }
    stopWatchingEnd = options.endWatch.watch(run, (end) => {
      runEnd = end;
      endIfComplete();
    });
    startHeartbeats(channel, options.heartbeatMs);
    beating = true;
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
