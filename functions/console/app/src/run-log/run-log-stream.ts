// Follows one run's log stream (the API's run-logs function): an EventSource on the stream URL with
// `?access_token=` (browsers cannot set headers on it), which reconnects by itself after a network
// drop or an `event: resume`, sending `Last-Event-ID` (each line's `id:` is its number), so the
// server resends nothing already shown. When the EventSource gives up (an answer other than 200:
// an expired token's 401, a 503 while the database restarts), it cannot be told where to resume,
// so the viewer goes on with fetch and a `Last-Event-ID` header instead; that same request reads a
// 401's reason, which an EventSource never sees.
import { ServerSentEventParser } from './sse-parser.ts';

export interface RunLogLine {
  /** The line's number in the run's log: 1, 2, 3… */
  seq: number;
  text: string;
}

export type RunLogState =
  | { kind: 'connecting' }
  | { kind: 'streaming' }
  | { kind: 'reconnecting'; detail: string }
  | { kind: 'ended'; phase: string; message: string }
  | { kind: 'removed'; message: string }
  | { kind: 'unauthorized'; reason: string }
  | { kind: 'failed'; message: string };

export interface RunLogStreamOptions {
  streamUrl: string;
  token: string;
  onLine: (line: RunLogLine) => void;
  onState: (state: RunLogState) => void;
  onUnauthorized: (reason: string) => void;
}

/** Waits between resume attempts on the fetch path, doubling from the first to the last. */
const RESUME_DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000];

/** Answers that retrying cannot change: the run or the right to read it is gone, or the request is wrong. */
const FINAL_STATUSES = new Set([400, 403, 404]);

/** Opens the stream at once; returns the function that stops following it. */
export function followRunLog(options: RunLogStreamOptions): () => void {
  const stream = new RunLogStream(options);
  stream.start();
  return () => stream.stop();
}

class RunLogStream {
  readonly #options: RunLogStreamOptions;
  readonly #url: string;
  readonly #abort = new AbortController();
  #source: EventSource | undefined;
  #lastSeq = 0;
  #stopped = false;

  constructor(options: RunLogStreamOptions) {
    this.#options = options;
    const separator = options.streamUrl.includes('?') ? '&' : '?';
    this.#url = `${options.streamUrl}${separator}access_token=${encodeURIComponent(options.token)}`;
  }

  start(): void {
    this.#options.onState({ kind: 'connecting' });
    const source = new EventSource(this.#url);
    this.#source = source;
    source.addEventListener('open', () => this.#options.onState({ kind: 'streaming' }));
    for (const type of ['message', 'end', 'expired', 'resume', 'removed'])
      source.addEventListener(type, (event) => {
        const message = event as MessageEvent<string>;
        this.#event(type, message.data, message.lastEventId);
      });
    source.addEventListener('error', () => {
      if (this.#stopped) return;
      if (source.readyState === EventSource.CLOSED) void this.#resumeWithFetch();
      else this.#options.onState({ kind: 'reconnecting', detail: 'connection lost; resuming' });
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#source?.close();
    this.#abort.abort();
  }

  #event(type: string, data: string, lastEventId: string): void {
    if (this.#stopped) return;
    if (type === 'message') {
      const seq = Number(lastEventId);
      // A line at or before the last one shown is never shown twice, whatever the transport did.
      if (!Number.isSafeInteger(seq) || seq <= this.#lastSeq) return;
      this.#lastSeq = seq;
      this.#options.onLine({ seq, text: data });
    } else if (type === 'end') {
      const end = parseJson(data);
      this.stop();
      // statusMessage is the controller's word on the outcome; message is what the user started the run with.
      this.#options.onState({ kind: 'ended', phase: text(end.phase, 'unknown'), message: text(end.statusMessage, '') });
    } else if (type === 'expired') {
      const reason = text(parseJson(data).message, 'your session ended');
      this.stop();
      this.#unauthorized(reason);
    } else if (type === 'removed') {
      // Retention removed the log (or the run): there is nothing to resume.
      this.stop();
      this.#options.onState({ kind: 'removed', message: text(parseJson(data).message, 'the log was removed') });
    } else if (type === 'resume') {
      // The server closed the stream because this page read too slowly; EventSource reconnects by itself.
      this.#options.onState({ kind: 'reconnecting', detail: 'catching up' });
    }
  }

  #unauthorized(reason: string): void {
    this.#options.onState({ kind: 'unauthorized', reason });
    this.#options.onUnauthorized(reason);
  }

  /** Resumes after the last line shown until the run ends, the token is refused, or the viewer stops. */
  async #resumeWithFetch(): Promise<void> {
    this.#source?.close();
    let attempt = 0;
    while (!this.#stopped) {
      this.#options.onState({ kind: 'reconnecting', detail: 'connection lost; resuming' });
      if (attempt > 0) await delay(RESUME_DELAYS_MS[Math.min(attempt, RESUME_DELAYS_MS.length) - 1]!, this.#abort);
      attempt++;
      if (this.#stopped) return;
      let response: Response;
      try {
        response = await fetch(this.#url, {
          headers: { 'Last-Event-ID': String(this.#lastSeq), Accept: 'text/event-stream' },
          cache: 'no-store',
          credentials: 'omit',
          signal: this.#abort.signal,
        });
      } catch {
        continue;
      }
      if (response.status === 200) {
        this.#options.onState({ kind: 'streaming' });
        attempt = 0;
        await this.#read(response);
        continue;
      }
      const message = await errorMessage(response);
      if (response.status === 401) return this.#unauthorized(message);
      if (FINAL_STATUSES.has(response.status)) {
        this.stop();
        this.#options.onState({ kind: 'failed', message });
        return;
      }
      // 429 (too many streams), 5xx: wait and try again.
    }
  }

  async #read(response: Response): Promise<void> {
    const parser = new ServerSentEventParser(
      (event) => this.#event(event.type, event.data, event.lastEventId),
      String(this.#lastSeq),
    );
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (!this.#stopped) {
        const { value, done } = await reader.read();
        if (done) return;
        parser.push(value);
      }
    } catch {
      // A dropped connection: the caller resumes.
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }
}

/** What an error answer says: the API's `{ error, reason }` (a Kubernetes Status has `message`), or its status. */
async function errorMessage(response: Response): Promise<string> {
  const body = parseJson(await response.text().catch(() => ''));
  return text(body.error, text(body.message, `the API answered ${response.status}`));
}

function parseJson(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function delay(ms: number, abort: AbortController): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      abort.signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    abort.signal.addEventListener('abort', done, { once: true });
  });
}
