import pg from 'pg';

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
  const pool = new pg.Pool({ ...DEFAULT_POOL_SETTINGS, ...overrides, connectionString });
  pool.on('error', onIdleClientError);
  return pool;
}
