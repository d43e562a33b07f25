// The four parts the server uses, not the package's index (see prom-client-parts.d.ts).
import Counter from 'prom-client/lib/counter.js';
import Gauge from 'prom-client/lib/gauge.js';
import Histogram from 'prom-client/lib/histogram.js';
import Registry from 'prom-client/lib/registry.js';
import { HotCounter, HotHistogram } from './hot-path-series.ts';

/**
 * The process's Prometheus metrics (issue 23; every metric is described in docs/observability.md).
 * Deep modules never import a global: they are handed this object (the app context's `metrics`) or
 * one of its hooks. Each context has its own registry, so tests and several contexts in one process
 * do not collide; `npm start` serves every function from one context, so its `/metrics` shows the
 * whole process once, the HTTP metric telling the functions apart by its `function` label.
 * Every label value is bounded: route templates, principal types, catalogue reasons, fixed outcomes.
 */
export interface Metrics {
  readonly enabled: boolean;
  /** One HTTP request answered (the OpenTelemetry HTTP server semantic conventions' names). */
  httpRequest(request: HttpRequestLabels, seconds: number): void;
  /** A request on an authenticated route: `result` is `success` or the catalogue reason it was refused with. */
  authentication(principalType: string, result: string): void;
  /** A login's outcome (`success`, `wrong-password`, `throttled`, ... the audit annotation's values). */
  login(outcome: string): void;
  /** The failures counted against the admin account in its current window, as this instance last saw them. */
  loginAccountFailures(failures: number): void;
  /** A failed login spent the last of the account's budget: every client gets 429 until the window ends. */
  loginAccountLockout(): void;
  /** Where a limit that must hold across instances is counted from now on: `process` while the database does not answer. */
  sharedLimitStore(limit: SharedLimit, store: 'database' | 'process'): void;
  /** One decision of such a limit made in the process alone because the database did not answer. */
  sharedLimitFallback(limit: SharedLimit): void;
  /** A SubjectAccessReview or TokenReview sent to the cluster: its result and how long it took. */
  clusterReview(review: ClusterReview, result: string, seconds: number): void;
  /** A lookup in one of the caches in front of the cluster's reviews. */
  reviewCacheLookup(cache: ReviewCache, hit: boolean): void;
  /** The followed admin secret source was read again: it `changed`, was `unchanged`, or `failed` (unreadable or unusable). */
  secretSourceReload(result: SecretReading): void;
  /** A query to the run history database took this long. */
  databaseQuery(seconds: number): void;
  /** A call to the Kubernetes API (not a review: those have their own) took this long. */
  clusterCall(verb: string, seconds: number): void;
  /** A run-log stream or resource watch opened; call the returned function once when it closes. */
  streamOpened(kind: StreamKind): () => void;
  /** A slow run-log consumer was told to resume (its send buffer was full). */
  streamResumed(): void;
  /** A controller's claim: `claimed` a run (with the run's attempt number: 2 and up are retries), or `empty`. */
  runClaim(result: 'claimed' | 'empty', attempt?: number): void;
  /** A lease that expired unrenewed was taken over by a new claim (the previous holder lapsed). */
  leaseLapsed(): void;
  /** A Project token was created or revoked through the API (issue 46), by Project. */
  projectToken(event: 'created' | 'revoked', project: string): void;
  /** One attempt of the outbound engine to a receiver of `family`, what came of it and how long it took (issue 47). */
  outboundAttempt(attempt: OutboundAttemptLabels): void;
  /** A run task's result became final (issue 48): `passed`, `failed`, or `errored` (no answer before its deadline). */
  runTaskResult(status: 'passed' | 'failed' | 'errored', enforcement: 'advisory' | 'mandatory'): void;
  /** A run left `AwaitingTasks` (issue 48): it `proceeded` or `failed`; or a failed one was `overridden`. */
  runTaskGate(outcome: 'proceeded' | 'failed' | 'overridden'): void;
  /** Read at each scrape: what the process can only tell when asked. */
  collectOnScrape(source: ScrapeSources): void;
  /** The Prometheus text exposition of every metric of this context. */
  exposition(): Promise<{ contentType: string; body: string }>;
}

export type SecretReading = 'changed' | 'unchanged' | 'failed';
export type ClusterReview = 'SubjectAccessReview' | 'TokenReview';
export type ReviewCache = 'token' | 'subject_access_review';
export type StreamKind = 'run_log' | 'watch';
/** The limits counted across instances in the database (issue 36). */
export const SHARED_LIMITS = ['login_failures', 'run_log_streams', 'watches'] as const;
export type SharedLimit = (typeof SHARED_LIMITS)[number];

/** What one outbound attempt came to: `given_up` ends the delivery after its last attempt (or its receiver is gone). */
export type OutboundOutcome = 'delivered' | 'retried' | 'given_up';

export interface OutboundAttemptLabels {
  /** The receiver family (`notification`, run tasks'): a fixed set, never a receiver's name. */
  family: string;
  outcome: OutboundOutcome;
  seconds: number;
  /** The attempt's number (1 for the first): observed when the delivery ends (delivered or given up). */
  attempt: number;
}

export interface HttpRequestLabels {
  function: string;
  method: string;
  /** The route template (`/api/v1alpha1/runs/{id}`), or UNMATCHED_ROUTE: never a raw path. */
  route: string;
  status: number;
}

/** The `http_route` of a request no route matched: one value, so scanners cannot grow the label set. */
export const UNMATCHED_ROUTE = 'unmatched';

/** What is collected at each scrape; each is optional, as not every function has a database. */
export interface ScrapeSources {
  /** The pool of the run history database, when opened. */
  databasePool?: () => { total: number; idle: number; waiting: number } | undefined;
  /** The Pending runs: how many and the age of the oldest, from the database; undefined while it is not open. */
  runQueue?: () => Promise<{ depth: number; oldestAgeSeconds: number } | undefined>;
  /** The outbound engine's backlog (events to route, deliveries pending) and its oldest's age; undefined in processes that do not sweep. */
  outboundQueue?: () => Promise<{ pending: number; oldestAgeSeconds: number } | undefined>;
  /** Audit events dropped since start, per sink. */
  auditEventsDropped?: () => Record<string, number>;
  /** When the admin token signing key in force was loaded (ms since the epoch). */
  signingKeyLoadedAt?: () => number | undefined;
}

/** The switch `METRICS=off`: every hook does nothing and no metric is kept. */
export const NO_METRICS: Metrics = {
  enabled: false,
  httpRequest() {},
  authentication() {},
  login() {},
  loginAccountFailures() {},
  loginAccountLockout() {},
  sharedLimitStore() {},
  sharedLimitFallback() {},
  clusterReview() {},
  reviewCacheLookup() {},
  secretSourceReload() {},
  databaseQuery() {},
  clusterCall() {},
  streamOpened: () => () => {},
  streamResumed() {},
  runClaim() {},
  leaseLapsed() {},
  projectToken() {},
  outboundAttempt() {},
  runTaskResult() {},
  runTaskGate() {},
  collectOnScrape() {},
  exposition: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
};

/** Request and call latencies: from a cached answer (sub-millisecond) to a slow cluster (10 s). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A registry of its own with the platform's metrics; `createMetrics(false)` for NO_METRICS. */
export function createMetrics(enabled: boolean): Metrics {
  return enabled ? new PrometheusMetrics() : NO_METRICS;
}

class PrometheusMetrics implements Metrics {
  readonly enabled = true;
  readonly registry = new Registry();
  readonly #sources: ScrapeSources[] = [];
  #runQueue: { depth: Gauge; oldestAge: Gauge } | undefined;
  #outboundQueue: { depth: Gauge; oldestAge: Gauge } | undefined;

  // Updated by every request: kept by hot-path-series.ts, which costs a map lookup per update.
  readonly #http = this.#hot(
    new HotHistogram(
      'http_server_request_duration_seconds',
      'Duration of HTTP server requests, by method, route template, status and function.',
      ['http_request_method', 'http_route', 'http_response_status_code', 'function'],
      LATENCY_BUCKETS,
    ),
  );
  readonly #authentications = this.#hot(
    new HotCounter(
      'platform_api_authentication_attempts_total',
      'Requests on authenticated routes, by principal type and result (success, or the reason of the refusal).',
      ['principal_type', 'result'],
    ),
  );
  readonly #cacheLookups = this.#hot(
    new HotCounter(
      'platform_api_review_cache_lookups_total',
      'Lookups in the token and SubjectAccessReview caches, by hit or miss.',
      ['cache', 'result'],
    ),
  );
  readonly #logins = this.#counter('platform_api_logins_total', 'Admin logins by outcome.', ['outcome']);
  readonly #throttleRefusals = this.#counter(
    'platform_api_login_throttle_refusals_total',
    "Logins refused by the failed-login throttle (429), by whose budget was spent: the client's or the account's.",
    ['budget'],
  );
  readonly #accountFailures = new Gauge({
    name: 'platform_api_login_account_failures',
    help: 'Failed logins counted against the admin account in its current window, as this instance last saw them (past LOGIN_ACCOUNT_MAX_FAILURES every client gets 429).',
    registers: [this.registry],
  });
  readonly #accountLockouts = this.#counter(
    'platform_api_login_account_lockouts_total',
    "Failed logins that spent the last of the admin account's budget for their window (every client then gets 429 until it ends).",
    [],
  );
  readonly #sharedLimitStore = new Gauge({
    name: 'platform_api_shared_limit_store',
    help: 'Where each limit that must hold across instances is counted: 1 on the store in use (database, or process while the database does not answer).',
    labelNames: ['limit', 'store'],
    registers: [this.registry],
  });
  readonly #sharedLimitFallbacks = this.#counter(
    'platform_api_shared_limit_fallbacks_total',
    'Decisions of a limit shared across instances made in the process alone because the database did not answer.',
    ['limit'],
  );
  readonly #reviews = this.#counter(
    'platform_api_cluster_reviews_total',
    'SubjectAccessReviews and TokenReviews sent to the cluster, by result.',
    ['review', 'result'],
  );
  readonly #reviewSeconds = this.#histogram(
    'platform_api_cluster_review_duration_seconds',
    'Latency of the SubjectAccessReviews and TokenReviews sent to the cluster.',
    ['review'],
  );
  readonly #secretReloads = this.#counter(
    'platform_api_secret_source_reloads_total',
    'Re-reads of the followed admin secret source, by result (changed, unchanged, failed).',
    ['result'],
  );
  readonly #databaseQueries = this.#histogram(
    'platform_api_database_query_duration_seconds',
    'Latency of run history database queries.',
    [],
  );
  readonly #clusterCalls = this.#histogram(
    'platform_api_cluster_request_duration_seconds',
    'Latency of calls to the Kubernetes API by verb (reviews excluded).',
    ['verb'],
  );
  readonly #openStreams = new Gauge({
    name: 'platform_api_open_streams',
    help: 'Run-log streams and resource watches open now.',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly #streamResumes = this.#counter(
    'platform_api_stream_resumes_total',
    'Run-log streams told to resume because the client read too slowly.',
    [],
  );
  readonly #claims = this.#counter(
    'platform_api_run_claims_total',
    "Controllers' claims, by result (claimed, empty).",
    ['result'],
  );
  readonly #claimAttempts = new Histogram({
    name: 'platform_api_run_claim_attempts',
    help: 'The attempt number of each claimed run (1: its first; more: it was claimed again after a lapse).',
    buckets: [1, 2, 3, 5, 10],
    registers: [this.registry],
  });
  readonly #leaseLapses = this.#counter(
    'platform_api_run_lease_lapses_total',
    'Leases that lapsed unrenewed, collected by a claim (the run went back to Pending, or ended).',
    [],
  );
  readonly #outboundDeliveries = this.#counter(
    'platform_api_outbound_deliveries_total',
    'Attempts of the outbound engine, by receiver family and outcome (delivered, retried, given_up).',
    ['family', 'outcome'],
  );
  readonly #outboundSeconds = this.#histogram(
    'platform_api_outbound_attempt_duration_seconds',
    "Latency of the outbound engine's attempts (connection and answer), by receiver family.",
    ['family'],
  );
  readonly #outboundAttempts = new Histogram({
    name: 'platform_api_outbound_delivery_attempts',
    help: 'Attempts a delivery took when it ended, by receiver family and outcome (delivered, given_up).',
    labelNames: ['family', 'outcome'],
    buckets: [1, 2, 3, 5, 8, 13, 21, 34, 50],
    registers: [this.registry],
  });

  readonly #projectTokens = this.#counter(
    'platform_api_project_tokens_total',
    'Project tokens created and revoked through the API, by Project and event (created, revoked).',
    ['project', 'event'],
  );

  readonly #runTaskResults = this.#counter(
    'platform_api_run_task_results_total',
    "Run tasks' results that became final, by status (passed, failed, errored: no answer before RUN_TASK_TIMEOUT) and enforcement.",
    ['status', 'enforcement'],
  );
  readonly #runTaskGates = this.#counter(
    'platform_api_run_task_gates_total',
    'Runs that left AwaitingTasks, by outcome (proceeded, failed), and failed runs overridden to proceed.',
    ['outcome'],
  );

  constructor() {
    this.#openStreams.set({ kind: 'run_log' }, 0);
    this.#openStreams.set({ kind: 'watch' }, 0);
    this.#throttleRefusals.inc({ budget: 'client' }, 0);
    this.#throttleRefusals.inc({ budget: 'account' }, 0);
    this.#accountLockouts.inc(0);
    for (const limit of SHARED_LIMITS) this.#sharedLimitFallbacks.inc({ limit }, 0);
    this.#streamResumes.inc(0);
    this.#leaseLapses.inc(0);
    // Every run task outcome has a series from the start, so a rate or an alert on it reads 0, not nothing.
    for (const status of ['passed', 'failed', 'errored'] as const)
      for (const enforcement of ['advisory', 'mandatory'] as const)
        this.#runTaskResults.inc({ status, enforcement }, 0);
    for (const outcome of ['proceeded', 'failed', 'overridden'] as const) this.#runTaskGates.inc({ outcome }, 0);
    this.#scrapeGauges();
  }

  httpRequest(request: HttpRequestLabels, seconds: number): void {
    this.#http.observe(seconds, request.method, request.route, request.status, request.function);
  }

  authentication(principalType: string, result: string): void {
    this.#authentications.inc(principalType, result);
  }

  login(outcome: string): void {
    this.#logins.inc({ outcome });
    if (outcome === 'throttled') this.#throttleRefusals.inc({ budget: 'client' });
    else if (outcome === 'account-throttled') this.#throttleRefusals.inc({ budget: 'account' });
  }

  loginAccountFailures(failures: number): void {
    this.#accountFailures.set(failures);
  }

  loginAccountLockout(): void {
    this.#accountLockouts.inc();
  }

  sharedLimitStore(limit: SharedLimit, store: 'database' | 'process'): void {
    this.#sharedLimitStore.set({ limit, store }, 1);
    this.#sharedLimitStore.set({ limit, store: store === 'database' ? 'process' : 'database' }, 0);
  }

  sharedLimitFallback(limit: SharedLimit): void {
    this.#sharedLimitFallbacks.inc({ limit });
  }

  clusterReview(review: ClusterReview, result: string, seconds: number): void {
    this.#reviews.inc({ review, result });
    this.#reviewSeconds.observe({ review }, seconds);
  }

  reviewCacheLookup(cache: ReviewCache, hit: boolean): void {
    this.#cacheLookups.inc(cache, hit ? 'hit' : 'miss');
  }

  secretSourceReload(result: SecretReading): void {
    this.#secretReloads.inc({ result });
  }

  databaseQuery(seconds: number): void {
    this.#databaseQueries.observe(seconds);
  }

  clusterCall(verb: string, seconds: number): void {
    this.#clusterCalls.observe({ verb }, seconds);
  }

  streamOpened(kind: StreamKind): () => void {
    this.#openStreams.inc({ kind });
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.#openStreams.dec({ kind });
    };
  }

  streamResumed(): void {
    this.#streamResumes.inc();
  }

  runClaim(result: 'claimed' | 'empty', attempt?: number): void {
    this.#claims.inc({ result });
    if (attempt !== undefined) this.#claimAttempts.observe(attempt);
  }

  leaseLapsed(): void {
    this.#leaseLapses.inc();
  }

  projectToken(event: 'created' | 'revoked', project: string): void {
    this.#projectTokens.inc({ project, event });
  }

  outboundAttempt({ family, outcome, seconds, attempt }: OutboundAttemptLabels): void {
    this.#outboundDeliveries.inc({ family, outcome });
    this.#outboundSeconds.observe({ family }, seconds);
    if (outcome !== 'retried') this.#outboundAttempts.observe({ family, outcome }, attempt);
  }

  runTaskResult(status: 'passed' | 'failed' | 'errored', enforcement: 'advisory' | 'mandatory'): void {
    this.#runTaskResults.inc({ status, enforcement });
  }

  runTaskGate(outcome: 'proceeded' | 'failed' | 'overridden'): void {
    this.#runTaskGates.inc({ outcome });
  }

  collectOnScrape(source: ScrapeSources): void {
    this.#sources.push(source);
  }

  async exposition(): Promise<{ contentType: string; body: string }> {
    await this.#collectRunQueue();
    await this.#collectOutboundQueue();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /**
   * The run queue's gauges, registered once a source answers: a function that never opened the run
   * database (login, public-config) exports none, rather than a depth of 0 that a `sum` would count.
   */
  async #collectRunQueue(): Promise<void> {
    for (const source of this.#sources) {
      const queue = await source.runQueue?.().catch(() => undefined);
      if (!queue) continue;
      this.#runQueue ??= {
        depth: new Gauge({
          name: 'platform_api_run_queue_depth',
          help: 'Pending runs, read from the database at each scrape (functions that have opened it only).',
          registers: [this.registry],
        }),
        oldestAge: new Gauge({
          name: 'platform_api_run_queue_oldest_pending_age_seconds',
          help: 'Age of the oldest Pending run (0 when none), read from the database at each scrape.',
          registers: [this.registry],
        }),
      };
      this.#runQueue.depth.set(queue.depth);
      this.#runQueue.oldestAge.set(queue.oldestAgeSeconds);
    }
  }

  /** The outbound backlog's gauges, registered once a sweeping process's source answers (as the run queue's). */
  async #collectOutboundQueue(): Promise<void> {
    for (const source of this.#sources) {
      const queue = await source.outboundQueue?.().catch(() => undefined);
      if (!queue) continue;
      this.#outboundQueue ??= {
        depth: new Gauge({
          name: 'platform_api_outbound_queue_depth',
          help: 'Outbound events not yet routed plus deliveries pending, read from the database at each scrape (sweeping processes only).',
          registers: [this.registry],
        }),
        oldestAge: new Gauge({
          name: 'platform_api_outbound_queue_oldest_age_seconds',
          help: 'Age of the oldest outbound event not routed or delivery pending (0 when none): how far delivery lags.',
          registers: [this.registry],
        }),
      };
      this.#outboundQueue.depth.set(queue.pending);
      this.#outboundQueue.oldestAge.set(queue.oldestAgeSeconds);
    }
  }

  #hot<Series extends HotCounter | HotHistogram>(series: Series): Series {
    // prom-client's registry reads any object with its metrics' shape (name, help, type, get()).
    this.registry.registerMetric(series as never);
    return series;
  }

  #counter(name: string, help: string, labelNames: string[]) {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  #histogram(name: string, help: string, labelNames: string[]) {
    return new Histogram({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [this.registry] });
  }

  /** The gauges read at each scrape from the sources the context registered (collectOnScrape). */
  #scrapeGauges(): void {
    const sources = this.#sources;
    const registers = [this.registry];
    new Gauge({
      name: 'platform_api_database_pool_connections',
      help: 'Connections of the run history database pool: total, idle, and clients waiting for one.',
      labelNames: ['state'],
      registers,
      collect() {
        for (const source of sources) {
          const pool = source.databasePool?.();
          if (!pool) continue;
          this.set({ state: 'total' }, pool.total);
          this.set({ state: 'idle' }, pool.idle);
          this.set({ state: 'waiting' }, pool.waiting);
        }
      },
    });
    new Counter({
      name: 'platform_api_audit_events_dropped_total',
      help: 'Audit events dropped since the process started, by sink (the database sink when its buffer was full).',
      labelNames: ['sink'],
      registers,
      collect() {
        // A counter cannot be set: it is rebuilt from the sinks' own totals at each scrape.
        this.reset();
        for (const source of sources) {
          for (const [sink, dropped] of Object.entries(source.auditEventsDropped?.() ?? {})) {
            this.inc({ sink }, dropped);
          }
        }
      },
    });
    new Gauge({
      name: 'platform_api_signing_key_age_seconds',
      help: 'How long ago the admin token signing key in force was loaded from the secret source.',
      registers,
      collect() {
        for (const source of sources) {
          const loadedAt = source.signingKeyLoadedAt?.();
          if (loadedAt !== undefined) this.set((Date.now() - loadedAt) / 1000);
        }
      },
    });
  }
}
