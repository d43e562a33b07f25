import { FINAL_PHASES, type Run, type RunLogLine } from '../../shared/runs/run.ts';
import type { RunStore } from '../../shared/runs/run-store.ts';
import { MAX_LOG_READ_LIMIT } from '../../shared/runs/run-store.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { EventChannel } from './event-channel.ts';

/** How often the stream says it is alive, and how often it looks whether the run has finished. */
export interface RunLogTiming {
  heartbeatMs: number;
  phaseCheckMs: number;
}

/** How often the stream looks whether the run has finished; the heartbeat interval is configured (ServerConfig). */
export const PHASE_CHECK_MS = 2_000;
/** What EventSource waits before reconnecting (it then sends Last-Event-ID). */
const RECONNECT_DELAY_MS = 3_000;

export interface RunLogStreamOptions {
  store: RunStore;
  run: Run;
  /** Lines up to and including this seq were seen already (Last-Event-ID). */
  afterSeq: number;
  signal: AbortSignal | undefined;
  logger: Logger;
  timing: RunLogTiming;
}

/**
 * The server-sent events of one run's log: each line as an event whose `id` is its seq, a
 * heartbeat comment now and then, and `event: end` with the final phase once the run is over
 * and every line was sent. Stops when the client goes away.
 */
export async function* runLogEvents(options: RunLogStreamOptions): AsyncGenerator<string> {
  const { store, run, logger } = options;
  const { timing } = options;
  const channel = new EventChannel();
  let lastSeq = options.afterSeq;
  // Live deliveries and the final catch-up may overlap: the seq check drops what was already sent.
  const send = async (lines: RunLogLine[]) => {
    for (const line of lines) {
      if (line.seq <= lastSeq) continue;
      lastSeq = line.seq;
      await channel.push(formatLine(line));
    }
  };
  const finish = async (finalRun: Run) => {
    for (;;) {
      const rest = await store.readLogLines(run.id, lastSeq, MAX_LOG_READ_LIMIT);
      if (rest.length === 0) break;
      await send(rest);
    }
    await channel.push(`event: end\ndata: ${JSON.stringify({ phase: finalRun.phase, message: finalRun.message, statusMessage: finalRun.statusMessage })}\n\n`);
    channel.close();
  };
  let checking = false;
  const checkPhase = async () => {
    if (checking || channel.closed) return;
    checking = true;
    try {
      const current = await store.getRun(run.project, run.id);
      if (FINAL_PHASES.includes(current.phase)) await finish(current);
    } catch (error) {
      // A database hiccup is retried at the next check; the stream itself stays open.
      logger.warn('run log stream: phase check failed', { runId: run.id, detail: error instanceof Error ? error.message : String(error) });
    } finally {
      checking = false;
    }
  };

  const onAbort = () => channel.close();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const unsubscribe = await store.subscribeToLogLines({
    runId: run.id,
    afterSeq: lastSeq,
    onLines: send,
    onError: (error) => logger.warn('run log stream: delivery failed', { runId: run.id, detail: error instanceof Error ? error.message : String(error) }),
  });
  const heartbeat = setInterval(() => channel.offer(': heartbeat\n\n'), timing.heartbeatMs);
  const phaseCheck = setInterval(() => void checkPhase(), timing.phaseCheckMs);
  if (FINAL_PHASES.includes(run.phase)) void checkPhase();
  try {
    yield `retry: ${RECONNECT_DELAY_MS}\n\n`;
    yield* channel;
  } finally {
    clearInterval(heartbeat);
    clearInterval(phaseCheck);
    options.signal?.removeEventListener('abort', onAbort);
    channel.close();
    await unsubscribe();
  }
}

// A line may itself contain newlines; each part becomes a `data:` field, which EventSource joins with "\n".
function formatLine(line: RunLogLine): string {
  return `id: ${line.seq}\n${line.line.split(/\r\n|\r|\n/).map((part) => `data: ${part}`).join('\n')}\n\n`;
}
