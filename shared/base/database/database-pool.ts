import pg from 'pg';
import { isTracingOn } from '../tracing/tracing.ts';
import { tracedPoolClasses } from './traced-database-client.ts';

/** Pool settings tuned so that a down database answers within about two seconds instead of hanging. */
const DEFAULT_POOL_SETTINGS = {
  max: 10,
  connectionTimeoutMillis: 2_000,
  idleTimeoutMillis: 30_000,
  // A server that accepted the connection but stopped answering is as good as down.
  query_timeout: 15_000,
  keepAlive: true,
} satisfies pg.PoolConfig;

/**
 * Creates a `pg.Pool` for `connectionString`. `onIdleClientError` hears about idle connections the
 * server dropped (a restart, for instance); without a listener node-postgres would crash the process.
 */
export function createDatabasePool(
  connectionString: string,
  onIdleClientError: (error: Error) => void,
  overrides: pg.PoolConfig = {},
): pg.Pool {
  // With tracing on, each query is a span of the request that made it (traced-database-client.ts).
  const traced = isTracingOn() ? tracedPoolClasses(connectionString) : undefined;
  const Pool = traced?.Pool ?? pg.Pool;
  const pool = new Pool({
    ...DEFAULT_POOL_SETTINGS,
    ...overrides,
    connectionString,
    ...(traced ? { Client: traced.Client } : {}),
  });
  pool.on('error', onIdleClientError);
  return pool;
}

/**
 * Times every query of the pool's connections (the query latency metric): each connection's `query`
 * is wrapped when the pool opens it, so pool queries (which reach the connection with a callback)
 * and transactions on a checked-out client (promises) are both heard. Submittable queries (cursors)
 * pass through untimed.
 */
export function observeQueryDurations(pool: pg.Pool, observe: (seconds: number) => void): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const startedAt = performance.now();
      const done = () => observe((performance.now() - startedAt) / 1000);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (...results: unknown[]) => {
          done();
          return callback(...results);
        };
        return query(...args);
      }
      const answer = query(...args);
      if (answer instanceof Promise) answer.then(done, done);
      return answer;
    }) as typeof client.query;
  });
}
