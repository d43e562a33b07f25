// Follows a run's log over the run-log stream (docs/resources.md, "Run-log stream"), resuming by
// itself with Last-Event-ID: after a dropped connection, after `resume` (it read too slowly), and after
// `expired` once the kubeconfig gives a new credential (an exec plugin such as kubelogin is run again).
// Every line is written once, in order, whatever happens to the connections in between.
import type { IncomingMessage } from 'node:http';
import type { RunPhase } from '../../shared/domain/runs/run.ts';
import { type PlatformConnection, parseAnswer, readAnswer } from './platform-connection.ts';
import { PluginError } from './plugin-error.ts';
import { serverError } from './server-errors.ts';
import { serverSentEvents } from './server-sent-events.ts';

/** Why following stopped. */
export type LogEnd =
  /** The run is final and every line was written (the stream's `end` event). */
  | { kind: 'end'; phase: RunPhase; message: string; statusMessage: string }
  /** Not following (no -f): no line came for the quiet time, so what the log had is written. */
  | { kind: 'quiet' }
  /**
   * The stream closed with another last event: `removed` (retention removed the run's log or the run
   * itself, issue 35: its `reason` says which) or one a newer server adds; the caller asks the run itself.
   */
  | { kind: 'closed'; event: string; reason: string | undefined; message: string };

export interface FollowOptions {
  /** Called with each line of the log, once, in order. */
  write: (line: string) => void;
  /** Without -f: stop once no line came for this long. */
  quietMs?: number;
}

/** Statuses after which the same request may succeed later (kubectl retries these too). */
const TRANSIENT = new Set([429, 502, 503, 504]);
const DEFAULT_RETRY_MS = 3_000;
const DROPPED_DELAY_MS = 1_000;
/** How long reconnecting may fail in a row (refused, 5xx, or cut with no line) before the command gives up. */
const GIVE_UP_MS = 120_000;

export class RunLogFollower {
  readonly #connection: PlatformConnection;
  readonly #options: FollowOptions;
  #lastEventId: string | undefined;
  /** The server's `retry:` advice; waited before a reconnection that follows a failed one. */
  #retryMs = DEFAULT_RETRY_MS;

  constructor(connection: PlatformConnection, options: FollowOptions) {
    this.#connection = connection;
    this.#options = options;
  }

  /** Writes the log of `run` in `project` until the run ends (or, without -f, until the log is quiet). */
  async follow(project: string, run: string): Promise<LogEnd> {
    const path = `/api/v1alpha1/run-logs/${encodeURIComponent(project)}/${encodeURIComponent(run)}`;
    let failingSince: number | undefined;
    for (;;) {
      const opened = await this.#open(path).catch((error: unknown) => {
        // A connection that cannot be made (the server restarting) is retried like a 503.
        if (error instanceof PluginError && /^Unable to connect/.test(error.message)) return error;
        throw error;
      });
      if (!('statusCode' in opened) || TRANSIENT.has(opened.statusCode ?? 0)) {
        failingSince ??= Date.now();
        if (Date.now() - failingSince > GIVE_UP_MS) throw 'statusCode' in opened ? await failure(opened) : opened;
        await delay('statusCode' in opened ? retryAfter(opened, this.#retryMs) : this.#retryMs);
        continue;
      }
      if (opened.statusCode === 401) {
        if (await this.#connection.renewCredentials()) continue;
        throw await failure(opened);
      }
      if (opened.statusCode !== 200) throw await failure(opened);
      const before = this.#lastEventId;
      const ended = await this.#read(opened);
      if (ended === 'resume') continue;
      if (ended === 'dropped') {
        // A connection cut without a last event: resume after a moment (not at once, in case the cut
        // repeats); cuts that bring no line count towards giving up, as failed connections do.
        if (this.#lastEventId !== before) failingSince = undefined;
        else failingSince ??= Date.now();
        if (failingSince !== undefined && Date.now() - failingSince > GIVE_UP_MS)
          throw new PluginError(`error: the log stream of run/${run} keeps closing without sending a line`, 'server');
        await delay(DROPPED_DELAY_MS);
        continue;
      }
      failingSince = undefined;
      if (ended.kind === 'expired') {
        if (await this.#connection.renewCredentials()) continue;
        throw new PluginError(
          `error: You must be logged in to the server (the stream ended with the credential that opened it: ${ended.message}; the kubeconfig gives no new one, so log in again)`,
          'server',
        );
      }
      return ended;
    }
  }

  #open(path: string): Promise<IncomingMessage> {
    return this.#connection.open('GET', path, {
      accept: 'text/event-stream',
      ...(this.#lastEventId !== undefined ? { 'last-event-id': this.#lastEventId } : {}),
    });
  }

  /** Reads one connection to its last event; `dropped` when it ended without one. */
  async #read(
    response: IncomingMessage,
  ): Promise<LogEnd | { kind: 'expired'; message: string } | 'dropped' | 'resume'> {
    response.setEncoding('utf8');
    let quiet = false;
    let timer: NodeJS.Timeout | undefined;
    const armQuietTimer = () => {
      if (this.#options.quietMs === undefined) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        quiet = true;
        response.destroy();
      }, this.#options.quietMs);
    };
    armQuietTimer();
    try {
      for await (const event of serverSentEvents(response)) {
        if (event.retry !== undefined) this.#retryMs = event.retry;
        if (event.data === undefined) continue;
        if (event.event === 'message') {
          if (event.id !== undefined) this.#lastEventId = event.id;
          this.#options.write(event.data);
          armQuietTimer();
          continue;
        }
        const data = parseData(event.data);
        if (event.event === 'end')
          return {
            kind: 'end',
            phase: data.phase as RunPhase,
            message: String(data.message ?? ''),
            statusMessage: String(data.statusMessage ?? ''),
          };
        if (event.event === 'resume') return 'resume';
        if (event.event === 'expired')
          return { kind: 'expired', message: `${data.reason ?? 'Expired'}: ${data.message ?? ''}` };
        return {
          kind: 'closed',
          event: event.event,
          reason: typeof data.reason === 'string' ? data.reason : undefined,
          message: String(data.message ?? event.data),
        };
      }
      return quiet ? { kind: 'quiet' } : 'dropped';
    } catch (error) {
      // The reader's refusal (a line over EVENT_STREAM_MAX_LINE) ends the command; a cut connection resumes.
      if (error instanceof PluginError) throw error;
      return quiet ? { kind: 'quiet' } : 'dropped';
    } finally {
      clearTimeout(timer);
      response.destroy();
    }
  }
}

function parseData(data: string): Record<string, unknown> {
  const parsed = parseAnswer(data);
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

/** The error of a refused stream, its body read for the Status. */
async function failure(response: IncomingMessage): Promise<PluginError> {
  return serverError(response.statusCode ?? 0, await readAnswer(response));
}

function retryAfter(response: IncomingMessage, fallbackMs: number): number {
  response.resume();
  const seconds = Number(response.headers['retry-after']);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, 30_000) : fallbackMs;
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
