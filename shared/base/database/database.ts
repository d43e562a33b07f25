import type pg from 'pg';
import { classifyDatabaseError } from './database-unavailable-error.ts';

/** How one statement (or one transaction) is bounded. */
export interface QueryOptions {
  /**
   * The request's deadline: a statement is not sent once it has passed; when it passes while the
   * statement runs, the statement is cancelled on the server (`pg_cancel_backend`, from another
   * connection of the pool) and its connection is given up at once (closed, never reused: a cancel
   * that arrives late must not stop the next statement on it). Rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /** The most the server may take to answer (node-postgres' `query_timeout`), for callers with no deadline of their own. */
  timeoutMs?: number;
}

/** One statement on a transaction's connection; failures classified like `Database.query`. */
export type TransactionQuery = <Row extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<Row>>;

/**
 * The one way the stores reach PostgreSQL. Each call is bounded (a deadline when given, the pool's
 * timeouts always), cancelled on the server when its deadline passes, and a server that cannot be
 * reached surfaces as `DatabaseUnavailableError` (503 with Retry-After) on every path. Queries are
 * traced by the pool underneath (database-pool.ts, traced-database-client.ts).
 */
export interface Database {
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
    options?: QueryOptions,
  ): Promise<pg.QueryResult<Row>>;
  /**
   * `work` in one transaction on one pooled connection: committed when it resolves, rolled back when
   * it throws (its error is rethrown). For decisions that must read and write under the same row lock.
   */
  transaction<T>(work: (query: TransactionQuery) => Promise<T>, options?: Pick<QueryOptions, 'signal'>): Promise<T>;
}

/** The `Database` over a pool (openDatabase's, or a test's). */
export function poolDatabase(pool: pg.Pool): Database {
  return {
    async query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = [], options: QueryOptions = {}) {
      const statement = statementOf(text, values, options);
      try {
        if (!options.signal) return await pool.query<Row>(statement);
        return await onBoundedConnection(pool, options.signal, (client) => client.query<Row>(statement));
      } catch (error) {
        throw classifyDatabaseError(error);
      }
    },
    async transaction(work, options = {}) {
      try {
        return await onBoundedConnection(pool, options.signal, (client) => inTransaction(client, work));
      } catch (error) {
        throw classifyDatabaseError(error);
      }
    },
  };
}

/**
 * A `Database` opened on first use (`open` runs at the first statement, and again after it failed):
 * a store built at start reaches a database that may open only when a request needs it.
 */
export function databaseOnFirstUse(open: () => Promise<Database>): Database {
  return {
    query: async (text, values, options) => (await open()).query(text, values, options),
    transaction: async (work, options) => (await open()).transaction(work, options),
  };
}

function statementOf(text: string, values: unknown[], options: QueryOptions): pg.QueryConfig {
  return {
    text,
    values,
    ...(options.timeoutMs !== undefined ? { query_timeout: options.timeoutMs } : {}),
  } as pg.QueryConfig;
}

/** `use` on a connection of its own, bounded by `signal` when given (see QueryOptions.signal). */
async function onBoundedConnection<T>(
  pool: pg.Pool,
  signal: AbortSignal | undefined,
  use: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  signal?.throwIfAborted();
  const client = await pool.connect();
  let released = false;
  const release = (destroy?: true | Error) => {
    if (released) return;
    released = true;
    client.release(destroy);
  };
  const abandon = () => {
    const backend = (client as pg.PoolClient & { processID: number | null }).processID;
    pool.query('SELECT pg_cancel_backend($1)', [backend]).catch(() => undefined);
    release(true);
  };
  signal?.addEventListener('abort', abandon, { once: true });
  try {
    // It may have passed while the pool had no free connection.
    signal?.throwIfAborted();
    return await use(client);
  } catch (error) {
    // A connection whose rollback failed is in an unknown state: it is dropped, not reused.
    if (error instanceof BrokenConnection) release(error);
    const failure = error instanceof BrokenConnection ? error.cause : error;
    throw signal?.aborted ? signal.reason : failure;
  } finally {
    signal?.removeEventListener('abort', abandon);
    release();
  }
}

/** A transaction's error whose rollback failed too: its connection must not go back to the pool. */
class BrokenConnection extends Error {}

async function inTransaction<T>(client: pg.PoolClient, work: (query: TransactionQuery) => Promise<T>): Promise<T> {
  const query: TransactionQuery = async (text, values = []) => {
    try {
      return await client.query(text, values);
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  };
  try {
    await query('BEGIN');
    const result = await work(query);
    await query('COMMIT');
    return result;
  } catch (error) {
    let broken = false;
    await client.query('ROLLBACK').catch(() => (broken = true));
    if (broken) throw new BrokenConnection('rollback failed', { cause: error });
    throw error;
  }
}
