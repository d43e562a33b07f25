import { fileURLToPath } from 'node:url';
import { classifyDatabaseError } from '../database/database-unavailable-error.ts';
import type { OpenDatabase } from '../database/open-database.ts';
import { serviceUnavailable } from '../http/api-error.ts';
import type { Logger } from '../logging/logger.ts';
import type { Environment, ServerConfig } from '../config/server-config.ts';
import type { RunStore } from '../runs/run-store.ts';
import { runStoreHttpError } from '../runs/run-http-errors.ts';

/** Where `npm start` keeps the embedded PostgreSQL's data: `<repo>/.data/postgres`. */
export const EMBEDDED_DATA_DIR = fileURLToPath(new URL('../../.data/postgres', import.meta.url));

/** The run history database of a process, opened on first use so that functions without runs never start it. */
export interface RunDatabase {
  /** The run store; opens (and migrates) the database the first time. Throws ApiError 503 when it cannot. */
  store(): Promise<RunStore>;
  /** Resolves when the database answers; throws ApiError 503 otherwise (for `/readyz`). */
  checkReady(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `DATABASE_URL` when set; else, outside production, an embedded PostgreSQL under `.data/`.
 * In production without `DATABASE_URL` every use is a 503: an embedded server in a container
 * would lose the history with the container.
 */
export function lazyRunDatabase(env: Environment, config: Pick<ServerConfig, 'production'>, logger: Logger): RunDatabase {
  let opening: Promise<{ database: OpenDatabase; store: RunStore }> | undefined;
  let closed = false;
  const open = () => {
    if (closed) return Promise.reject(serviceUnavailable('the server is shutting down', 'ShuttingDown'));
    if (config.production && !env.DATABASE_URL?.trim()) {
      logger.error('DATABASE_URL is not set: run history is unavailable (503) until it is');
      return Promise.reject(serviceUnavailable('the run history database is not configured (DATABASE_URL)', 'DatabaseNotConfigured', 30));
    }
    opening ??= openRunStore(env, logger).catch((error: unknown) => {
      // Forget the failure so that the next request tries again.
      opening = undefined;
      logger.error('run history database could not be opened', { detail: error instanceof Error ? error.message : String(error) });
      throw serviceUnavailable('the run history database cannot be opened; retry shortly', 'DatabaseUnavailable');
    });
    return opening;
  };
  return {
    store: async () => (await open()).store,
    async checkReady() {
      const { database } = await open();
      try {
        await database.pool.query('SELECT 1');
      } catch (error) {
        throw runStoreHttpError(classifyDatabaseError(error));
      }
    },
    async close() {
      closed = true;
      const current = opening;
      opening = undefined;
      await current?.then(({ database }) => database.close(), () => undefined);
    },
  };
}

/** Imported on first use: the PostgreSQL driver is loaded only by a function that serves runs. */
async function openRunStore(env: Environment, logger: Logger): Promise<{ database: OpenDatabase; store: RunStore }> {
  const [{ openDatabase }, { RunStore }] = await Promise.all([import('../database/open-database.ts'), import('../runs/run-store.ts')]);
  const database = await openDatabase({ env, embeddedDataDir: EMBEDDED_DATA_DIR, log: (line) => logger.info(line) });
  return { database, store: new RunStore(database.pool) };
}
