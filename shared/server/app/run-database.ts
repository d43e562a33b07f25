import type pg from 'pg';
import { databaseOnFirstUse, type Database } from '../../base/database/database.ts';
import type { OpenDatabase } from '../../base/database/open-database.ts';
import type { PageTokens } from '../../base/database/page-tokens.ts';
import type { Logger } from '../../base/logging/logger.ts';
import type { ServerConfig } from '../../base/config/server-config.ts';
import type { DatabaseSettings } from '../../base/config/settings.ts';
import type { RunHistorySettings } from '../../base/config/run-history-settings.ts';
import type { RunServices } from '../../domain/runs/run-services.ts';
import type { RunRecords } from '../../domain/runs/records/run-records.ts';
import type { RunHistoryMaintenance } from '../../domain/runs/history/run-history-maintenance.ts';
import { repeatInBackground, type BackgroundTask } from '../../base/node/background-task.ts';
import type { EmbeddedDatabaseStarter } from '../../base/database/database-url.ts';
import { LastingFailure } from '../../base/node/lasting-failure.ts';
import { apiError, retryAfter } from '../../base/http/error-catalogue.ts';
import { NO_METRICS, type Metrics } from '../../base/metrics/metrics.ts';

/**
 * How often a process that keeps the run history bounded runs a pass (any replica may; the others
 * skip what is taken), the first a minute after start (not at start: start-up is busy enough).
 */
const MAINTENANCE_INTERVAL_MS = 60_000;

/** The run history database of a process, opened on first use so that functions without runs never start it. */
export interface RunDatabase {
  /**
   * One of the run services (shared/domain/runs/run-services.ts): a function asks for the ones it uses. Opens
   * (and migrates) the database the first time; throws ApiError 503 when it cannot.
   */
  service<Name extends keyof RunServices>(name: Name): Promise<RunServices[Name]>;
  /**
   * The database (the stores' one way to it: shared/base/database/database.ts), opening (and migrating)
   * it at its first statement; a statement throws ApiError 503 when it cannot be opened.
   */
  readonly database: Database;
  /** Resolves when the database answers; throws ApiError 503 otherwise (for `/readyz`). */
  checkReady(): Promise<void>;
  /**
   * With DATABASE_URL: starts opening the database now, in the background, so an unreachable one is
   * logged at start with its cause rather than at the first request that needs it; nothing waits for
   * it (`/readyz` answers for it). Nothing otherwise: the embedded database starts only when needed.
   */
  checkAtStart(): void;
  /**
   * Local development without DATABASE_URL: opens the embedded database now and throws its real
   * error (held by another process, not installed), so start-up reports it instead of every
   * request answering 503. Does nothing otherwise: an external database may come later.
   */
  openIfEmbedded(): Promise<void>;
  /** The run records when the database is open already, else undefined: what a scrape reads without opening anything. */
  openedRecords(): RunRecords | undefined;
  /** The pool when the database is open already, else undefined. */
  openedPool(): pg.Pool | undefined;
  /**
   * The connection settings of the database, opening (and migrating) it first, for a listener that
   * needs a connection of its own (LISTEN cannot share the pool's); throws ApiError 503 when it cannot.
   */
  connectionSettings(): Promise<pg.ClientConfig>;
  /**
   * Keeps the history bounded from this process from now on (once, however often it is asked):
   * retention and compaction of finished runs' logs, a pass every minute from a minute after now
   * (shared/domain/runs/history/run-history-maintenance.ts).
   */
  maintain(): void;
  close(): Promise<void>;
}

/**
 * `DATABASE_URL` when set; else, outside production, the embedded PostgreSQL that local
 * development hands over (`startEmbedded`). Without either every use is a 503: in production an
 * embedded server in a container would lose the history with the container.
 */
export function lazyRunDatabase(
  database: DatabaseSettings,
  runHistory: RunHistorySettings,
  config: Pick<ServerConfig, 'production'>,
  logger: Logger,
  startEmbedded?: EmbeddedDatabaseStarter,
  metrics: Metrics = NO_METRICS,
  pageTokens?: PageTokens,
): RunDatabase {
  let maintenance: { task: BackgroundTask; passes?: RunHistoryMaintenance } | undefined;
  let opening: Promise<OpenRunDatabase> | undefined;
  let opened: OpenRunDatabase | undefined;
  let closed = false;
  const embedded = !config.production && database.url === undefined ? startEmbedded : undefined;
  const openOrThrow = () =>
    (opening ??= openRunServices(database, logger, embedded, metrics, pageTokens).then(
      (open) => {
        opened = open;
        return open;
      },
      (error: unknown) => {
        // Forget the failure so that the next request tries again.
        opening = undefined;
        // The cause is what an operator acts on: ECONNREFUSED, an authentication failure, TLS.
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
        logger.error('run history database could not be opened', {
          detail: error instanceof Error ? error.message : String(error),
          ...(cause ? { cause: cause.message, code: (cause as { code?: string }).code } : {}),
        });
        throw error;
      },
    ));
  const open = () => {
    if (closed) return Promise.reject(apiError('ShuttingDown', 'the server is shutting down'));
    if (database.url === undefined && !embedded) {
      logger.error('DATABASE_URL is not set: run history is unavailable (503) until it is');
      return Promise.reject(
        apiError('DatabaseNotConfigured', 'the run history database is not configured (DATABASE_URL)', retryAfter(30)),
      );
    }
    return openOrThrow().catch((error: unknown) => {
      // A cause that waiting does not cure is named; anything else may pass (a starting server).
      if (error instanceof LastingFailure) throw apiError('DatabaseUnavailable', error.message, retryAfter(30));
      throw apiError('DatabaseUnavailable', 'the run history database cannot be opened; retry shortly');
    });
  };
  return {
    service: async (name) => (await open()).services[name],
    database: databaseOnFirstUse(async () => (await open()).queries),
    async checkReady() {
      await (await open()).queries.query('SELECT 1');
    },
    checkAtStart() {
      // openOrThrow logs the failure and its cause; a later use tries again.
      if (database.url !== undefined && !closed) openOrThrow().catch(() => undefined);
    },
    async openIfEmbedded() {
      if (embedded) await openOrThrow();
    },
    openedRecords: () => opened?.services.records,
    openedPool: () => opened?.database.pool,
    connectionSettings: async () => (await open()).database.pool.options,
    maintain() {
      // Without a database there is no history to keep (every request says so with a 503).
      if (closed || maintenance || (database.url === undefined && !embedded)) return;
      const started: { task: BackgroundTask; passes?: RunHistoryMaintenance } = {
        task: repeatInBackground(
          async () => {
            // Imported at the first pass: a cold start loads none of the compactor.
            started.passes ??= new (
              await import('../../domain/runs/history/run-history-maintenance.ts')
            ).RunHistoryMaintenance(async () => (await open()).queries, runHistory, logger);
            await started.passes.runOnce();
          },
          {
            firstRunMs: MAINTENANCE_INTERVAL_MS,
            intervalMs: MAINTENANCE_INTERVAL_MS,
            onFailure: (error) =>
              logger.warn('run history maintenance could not run; it is tried again later', {
                detail: error instanceof Error ? error.message : String(error),
              }),
          },
        ),
      };
      maintenance = started;
    },
    async close() {
      closed = true;
      maintenance?.task.stop();
      maintenance?.passes?.stop();
      opened = undefined;
      const current = opening;
      opening = undefined;
      await current?.then(
        ({ database }) => database.close(),
        () => undefined,
      );
    },
  };
}

/** The open database: its pool (for the metrics and closing), the stores' way to it, the stores. */
interface OpenRunDatabase {
  database: OpenDatabase;
  queries: Database;
  services: RunServices;
}

/** Imported on first use: the PostgreSQL driver is loaded only by a function that serves runs. */
async function openRunServices(
  settings: DatabaseSettings,
  logger: Logger,
  startEmbedded: EmbeddedDatabaseStarter | undefined,
  metrics: Metrics,
  pageTokens: PageTokens | undefined,
): Promise<OpenRunDatabase> {
  const [{ openDatabase }, { poolDatabase }, { createRunServices }] = await Promise.all([
    import('../../base/database/open-database.ts'),
    import('../../base/database/database.ts'),
    import('../../domain/runs/run-services.ts'),
  ]);
  const database = await openDatabase({
    databaseUrl: settings.url,
    ...(startEmbedded ? { startEmbedded } : {}),
    log: (line) => logger.info(line),
    ...(metrics.enabled ? { onQuery: (seconds: number) => metrics.databaseQuery(seconds) } : {}),
  });
  const queries = poolDatabase(database.pool);
  return {
    database,
    queries,
    services: createRunServices(queries, database.pool.options, { ...(pageTokens ? { pageTokens } : {}), metrics }),
  };
}
