import type { Logger } from '../../../shared/logging/logger.ts';

/** One replica of a function behind the gateway. */
export interface Upstream {
  url: URL;
  /** Last known state: `ready` when its `/readyz` answered 2xx. */
  state: 'ready' | 'not-ready' | 'unreachable';
  /** Why it is not ready (the `/readyz` answer's `error`, or the connection error). */
  detail?: string;
}

/** How long a health check may take before the replica counts as unreachable. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * The replicas of one function: requests are spread round-robin over the ready ones, each
 * replica's `/readyz` is checked periodically, and every change of state is logged, so the
 * gateway's log tells which replica of which function is down and why.
 */
export class UpstreamPool {
  readonly name: string;
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
   * ready ones. Empty when none is ready.
   */
  candidates(): Upstream[] {
    const ready = this.#upstreams.filter((upstream) => upstream.state === 'ready');
    if (ready.length === 0) return [];
    const start = this.#next++ % ready.length;
    return [...ready.slice(start), ...ready.slice(0, start)];
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
      this.#transition(
        upstream,
        'unreachable',
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
      );
    }
  }

  #transition(upstream: Upstream, state: Upstream['state'], detail: string | undefined): void {
    if (upstream.state === state && upstream.detail === detail) return;
    upstream.state = state;
    upstream.detail = detail;
    const fields = { function: this.name, upstream: upstream.url.host, state, ...(detail ? { detail } : {}) };
    if (state === 'ready') this.#logger.info('upstream ready', fields);
    else this.#logger.warn('upstream not serving', fields);
  }
}
