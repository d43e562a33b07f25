// A reference workspace controller: the protocol of docs/run-history.md ("The controller's
// protocol") as the real controller speaks it. It claims runs, renews each lease at a third of its
// length, reads the run's variables, appends numbered log chunks (retrying a chunk whose answer was
// lost with the same numbers), uploads a plan's JSON for its run tasks, stops when its lease is lost, and
// acknowledges a cancellation.

/** A run as the internal API answers it (the fields the controller uses). */
export interface ClaimedRun {
  id: string;
  project: string;
  workspace: string;
  attempts: number;
  /** `plan` or `apply`. */
  type: string;
  /** The user's, given when the run started. */
  message: string;
}

export interface Lease {
  id: string;
  expiresAt: string;
  attempt: number;
  nextLogSeq: number;
  cancelRequested: boolean;
}

/** What the controller did, for whoever watches it (the tests read these). */
export type ControllerEvent =
  | { event: 'claimed'; runId: string; attempt: number }
  | { event: 'appended'; runId: string; firstSeq: number; lastSeq: number; duplicate: boolean }
  | { event: 'finished'; runId: string; phase: string }
  | { event: 'abandoned'; runId: string; reason: string }
  | { event: 'claim-failed'; reason: string };

/** Thrown when the server answers 409 LeaseNotHeld: another controller has the run now. */
export class LeaseLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeaseLostError';
  }
}

const RETRIES = 5;
const RETRY_DELAY_MS = 100;

/** The internal API as calls: each retried on network errors and 502/503, as a controller must. */
export class ControllerClient {
  readonly #baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;

  /** `fetchImpl`: another fetch, e.g. one that trusts a local gateway's self-signed certificate. */
  constructor(baseUrl: string, token: string, fetchImpl: typeof fetch = fetch) {
    this.#baseUrl = baseUrl;
    this.#token = token;
    this.#fetch = fetchImpl;
  }

  /** The oldest Pending run (of `filter`), or undefined when none waits. */
  async claim(
    leaseSeconds: number,
    filter: { project?: string; workspace?: string } = {},
  ): Promise<{ run: ClaimedRun; lease: Lease; runTasks?: { mayProceed: boolean } } | undefined> {
    const response = await this.#call('POST', '/internal/runs/claim', { ...filter, leaseSeconds });
    return response.status === 204
      ? undefined
      : ((await response.json()) as { run: ClaimedRun; lease: Lease; runTasks?: { mayProceed: boolean } });
  }

  async renew(runId: string, leaseId: string, leaseSeconds: number): Promise<Lease> {
    return (
      (await (await this.#call('POST', `/internal/runs/${runId}/lease`, { leaseId, leaseSeconds })).json()) as {
        lease: Lease;
      }
    ).lease;
  }

  async variables(runId: string, leaseId: string): Promise<Array<{ name: string; value: string; sensitive: boolean }>> {
    return (
      (await (
        await this.#call('GET', `/internal/runs/${runId}/variables`, undefined, { 'run-lease': leaseId })
      ).json()) as { variables: Array<{ name: string; value: string; sensitive: boolean }> }
    ).variables;
  }

  async append(
    runId: string,
    leaseId: string,
    firstSeq: number,
    lines: string[],
  ): Promise<{ firstSeq: number; lastSeq: number; nextSeq: number; duplicate: boolean; storedBefore: number }> {
    return (await this.#call('POST', `/internal/runs/${runId}/logs`, { leaseId, firstSeq, lines })).json() as Promise<{
      firstSeq: number;
      lastSeq: number;
      nextSeq: number;
      duplicate: boolean;
      storedBefore: number;
    }>;
  }

  /** Keeps a plan run's JSON (`terraform show -json`) for its run tasks (issue 48), before its phase is set. */
  async uploadPlanJson(runId: string, leaseId: string, document: unknown): Promise<void> {
    await (
      await this.#call('POST', `/internal/runs/${runId}/plan-json`, document, { 'run-lease': leaseId })
    ).body?.cancel();
  }

  async finish(
    runId: string,
    leaseId: string,
    phase: 'Succeeded' | 'Failed' | 'Cancelled',
    message: string,
  ): Promise<void> {
    await (await this.#call('POST', `/internal/runs/${runId}/phase`, { leaseId, phase, message })).body?.cancel();
  }

  async #call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      try {
        response = await this.#fetch(`${this.#baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.#token}`,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (error) {
        if (attempt >= RETRIES) throw error;
      }
      if (response && response.status !== 502 && response.status !== 503) {
        if (response.ok) return response;
        const text = await response.text();
        if (response.status === 409 && text.includes('"LeaseNotHeld"')) throw new LeaseLostError(text);
        throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
      }
      const detail = (await response?.text()) ?? '';
      if (attempt >= RETRIES) throw new Error(`${method} ${path} still unavailable after ${RETRIES} tries: ${detail}`);
      await delay(RETRY_DELAY_MS * attempt);
    }
  }
}

/** The work of one run: called with a way to write log lines and to ask whether to stop. */
export type ExecuteRun = (
  run: ClaimedRun,
  work: RunWork,
) => Promise<{ phase: 'Succeeded' | 'Failed'; message: string }>;

export interface RunWork {
  attempt: number;
  variables: Array<{ name: string; value: string; sensitive: boolean }>;
  /** Appends a chunk of lines, numbered after the last; throws LeaseLostError once the lease is gone. */
  log(lines: string[]): Promise<void>;
  /** Uploads the plan's JSON of a plan run (docs/run-tasks.md, "The plan's JSON"); throws LeaseLostError once the lease is gone. */
  planJson(document: unknown): Promise<void>;
  /** Whether a user asked to cancel (seen at the last renewal), or the lease was lost: stop then. */
  shouldStop(): boolean;
}

export interface ReferenceControllerOptions {
  client: ControllerClient;
  leaseSeconds: number;
  /** Runs worked on at once. */
  concurrency: number;
  /** How long to wait after "no Pending run" before asking again. */
  idleDelayMs: number;
  /** Only runs of this Project (and Workspace), for controllers sharded by Project; none: any run. */
  filter?: { project?: string; workspace?: string };
  execute: ExecuteRun;
  /** Sends every chunk a second time, as a controller does when the first answer was lost on the way. */
  resendEveryChunk?: boolean;
  onEvent?: (event: ControllerEvent) => void;
}

/** Claims and executes runs until stopped; `stop` lets the runs in hand finish. */
export class ReferenceController {
  readonly #options: ReferenceControllerOptions;
  #stopping = false;
  #workers: Array<Promise<void>> = [];

  constructor(options: ReferenceControllerOptions) {
    this.#options = options;
  }

  start(): void {
    this.#workers = Array.from({ length: this.#options.concurrency }, () => this.#work());
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#workers);
  }

  async #work(): Promise<void> {
    const { client, leaseSeconds, idleDelayMs, filter, onEvent = () => undefined } = this.#options;
    while (!this.#stopping) {
      const claimed = await client.claim(leaseSeconds, filter).catch((error: unknown) => {
        onEvent({ event: 'claim-failed', reason: error instanceof Error ? error.message : String(error) });
        return undefined;
      });
      if (!claimed) {
        await delay(idleDelayMs);
        continue;
      }
      // The claim says whether the run's tasks let it proceed (issue 48); a run they hold back is not executed.
      if (claimed.runTasks?.mayProceed === false) {
        await client.finish(claimed.run.id, claimed.lease.id, 'Failed', 'its run tasks do not let it proceed');
        continue;
      }
      await this.#execute(claimed.run, claimed.lease);
    }
  }

  async #execute(run: ClaimedRun, lease: Lease): Promise<void> {
    const { client, leaseSeconds, execute, onEvent = () => undefined } = this.#options;
    onEvent({ event: 'claimed', runId: run.id, attempt: lease.attempt });
    let nextSeq = lease.nextLogSeq;
    let cancelRequested = lease.cancelRequested;
    let lost: string | undefined;
    const renewal = setInterval(
      () => {
        client.renew(run.id, lease.id, leaseSeconds).then(
          (renewed) => (cancelRequested = renewed.cancelRequested),
          (error: unknown) => {
            if (error instanceof LeaseLostError) lost ??= error.message;
          },
        );
      },
      (leaseSeconds * 1000) / 3,
    );
    try {
      const variables = await client.variables(run.id, lease.id);
      const work: RunWork = {
        attempt: lease.attempt,
        variables,
        log: async (lines) => {
          const sends = this.#options.resendEveryChunk ? 2 : 1;
          for (let send = 0; send < sends; send++) {
            const answer = await client.append(run.id, lease.id, nextSeq, lines);
            onEvent({
              event: 'appended',
              runId: run.id,
              firstSeq: answer.firstSeq,
              lastSeq: answer.lastSeq,
              duplicate: answer.duplicate,
            });
          }
          nextSeq += lines.length;
        },
        planJson: (document) => client.uploadPlanJson(run.id, lease.id, document),
        shouldStop: () => cancelRequested || lost !== undefined,
      };
      const outcome = await execute(run, work);
      if (lost !== undefined) throw new LeaseLostError(lost);
      if (cancelRequested) {
        await client.finish(run.id, lease.id, 'Cancelled', 'stopped: a user cancelled the run');
        onEvent({ event: 'finished', runId: run.id, phase: 'Cancelled' });
        return;
      }
      await client.finish(run.id, lease.id, outcome.phase, outcome.message);
      onEvent({ event: 'finished', runId: run.id, phase: outcome.phase });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // Another controller has the run now (or will, once the lease lapses): leave it alone.
      if (error instanceof LeaseLostError) return onEvent({ event: 'abandoned', runId: run.id, reason });
      // The run itself failed (missing variables, a step that threw): say so rather than let the lease lapse.
      await client.finish(run.id, lease.id, 'Failed', reason.slice(0, 4_096)).then(
        () => onEvent({ event: 'finished', runId: run.id, phase: 'Failed' }),
        (failure: unknown) =>
          onEvent({
            event: 'abandoned',
            runId: run.id,
            reason: failure instanceof Error ? failure.message : String(failure),
          }),
      );
    } finally {
      clearInterval(renewal);
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
