import { Agent } from 'node:http';
import type { Logger } from '../../../shared/base/logging/logger.ts';

/** One replica of a function behind the gateway. */
export interface Upstream {
  url: URL;
  /** Last known state: `ready` when its `/readyz` answered 2xx. */
  state: 'ready' | 'not-ready' | 'unreachable';
  /** Why it is not ready (the `/readyz` answer's `error`, or the connection error). */
  detail?: string;
  /** Checks in a row that went unanswered within CHECK_TIMEOUT_MS while it was ready. */
  slowChecks?: number;
}

/** How long a health check may take before the replica counts as unreachable. */
const CHECK_TIMEOUT_MS = 2_000;
/**
 * Unanswered checks in a row that take a ready replica out of rotation (Kubernetes' readiness
 * `failureThreshold`, 3 by default). One slow answer is a busy machine, not a replica down: on two
 * loaded cores a ready replica missed one 2 s check, and the gateway answered 503 (issue 44,
 * item 14). A refused connection or a not-ready answer is definite and counts at once.
 */
const SLOW_CHECKS_TO_FAIL = 3;
/**
 * How long an idle kept-alive connection to a replica is kept: below node:http's default
 * keepAliveTimeout (5 s, which the functions-framework's server keeps), so the gateway never
 * sends a request on a connection the replica is closing at that very moment (a reset, which
 * would take a healthy replica out of rotation).
 */
const IDLE_CONNECTION_MS = 4_000;
const NONE: readonly Upstream[] = Object.freeze([]);

/**
 * The replicas of one function: requests are spread round-robin over the ready ones, each
 * replica's `/readyz` is checked periodically, and every change of state is logged, so the
 * gateway's log tells which replica of which function is down and why.
 */
export class UpstreamPool {
  readonly name: string;
  /**
   * The kept-alive connections to this function's replicas (one pool per replica, as an Agent
   * keeps them by host and port), reused most recently used first so that idle ones expire.
   */
  readonly agent = new Agent({ keepAlive: true, scheduling: 'lifo', timeout: IDLE_CONNECTION_MS });
  readonly #logger: Logger;
  #upstreams: Upstream[] = [];
  #next = 0;

  constructor(name: string, logger: Logger) {
    this.name = name;
    this.#logger = logger;
  }

  /** Replaces the set of replicas (a replica restarted on another port); known ones keep their state. */
  setUpstreams(urls: string[]): void {
    const known = new Map(this.#upstreams.map((upstream) => [upstream.url.href, upstream]));
    this.#upstreams = urls.map(
      (url) => known.get(new URL(url).href) ?? { url: new URL(url), state: 'unreachable', detail: 'not checked yet' },
    );
  }

  upstreams(): readonly Upstream[] {
    return this.#upstreams;
  }

  /**
   * The replicas to try for one request, the next ready one first (round-robin), then the other
   * ready ones. Empty when none is ready. One replica (the usual case locally) makes no new list
   * per request (issue 25).
   */
  candidates(): readonly Upstream[] {
    const all = this.#upstreams;
    if (all.length === 1) {
      if (all[0]!.state !== 'ready') return NONE;
      this.#next++;
      return all;
    }
    const ready = all.filter((upstream) => upstream.state === 'ready');
    if (ready.length === 0) return NONE;
    const start = this.#next++ % ready.length;
    return [...ready.slice(start), ...ready.slice(0, start)];
  }

  /** Whether every replica answered its last check ready (the fleet's start waits for this). */
  everyReady(): boolean {
    return this.#upstreams.every((upstream) => upstream.state === 'ready');
  }

  /** Why no replica is ready, for the 503 answer. */
  unavailableReason(): string {
    if (this.#upstreams.length === 0) return `no replica of ${this.name} is running`;
    return this.#upstreams
      .map((upstream) => `${upstream.url.host}: ${upstream.state}${upstream.detail ? ` (${upstream.detail})` : ''}`)
      .join('; ');
  }

  /** Records a failed request: the replica is out of rotation until its next good check. */
  markUnreachable(upstream: Upstream, error: Error): void {
    this.#transition(upstream, 'unreachable', error.message);
  }

  /** Checks every replica's `/readyz` once. */
  async checkAll(): Promise<void> {
    await Promise.all(this.#upstreams.map((upstream) => this.#check(upstream)));
  }

  async #check(upstream: Upstream): Promise<void> {
    try {
      const response = await fetch(new URL('/readyz', upstream.url), { signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
      if (response.ok) {
        await response.body?.cancel();
        return this.#transition(upstream, 'ready', undefined);
      }
      const body = (await response.json().catch(() => ({}))) as { error?: string };
      this.#transition(upstream, 'not-ready', body.error ?? `HTTP ${response.status}`);
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      if (timedOut && upstream.state === 'ready') {
        upstream.slowChecks = (upstream.slowChecks ?? 0) + 1;
        if (upstream.slowChecks < SLOW_CHECKS_TO_FAIL) return;
      }
      this.#transition(
        upstream,
        'unreachable',
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
      );
    }
  }

  #transition(upstream: Upstream, state: Upstream['state'], detail: string | undefined): void {
    upstream.slowChecks = 0;
    if (upstream.state === state && upstream.detail === detail) return;
    upstream.state = state;
    upstream.detail = detail;
    const fields = { function: this.name, upstream: upstream.url.host, state, ...(detail ? { detail } : {}) };
    if (state === 'ready') this.#logger.info('upstream ready', fields);
    else this.#logger.warn('upstream not serving', fields);
  }
}
