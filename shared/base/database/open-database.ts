import type pg from 'pg';
import { createDatabasePool, observeQueryDurations } from './database-pool.ts';
import { resolveDatabase } from './database-url.ts';
import type { ResolveDatabaseOptions } from './database-url.ts';
import { migrate } from './migrate.ts';

/** The service's migrated database, ready for `poolDatabase(pool)` and the run services. */
export interface OpenDatabase {
  pool: pg.Pool;
  source: 'DATABASE_URL' | 'embedded';
  /** For other processes to share it (the fleet's functions); contains the password, never log it. */
  connectionString: string;
  /** Ends the pool, then stops the embedded server if there is one. */
  close(): Promise<void>;
}

/** Start-up in one call: picks DATABASE_URL or the embedded server, opens a pool and applies pending migrations. */
export async function openDatabase(
  options: ResolveDatabaseOptions & { onQuery?: (seconds: number) => void },
): Promise<OpenDatabase> {
  const connection = await resolveDatabase(options);
  const pool = createDatabasePool(connection.connectionString, (error) =>
    options.log(`database: an idle connection was lost (${error.message}); it will be replaced`),
  );
  if (options.onQuery) observeQueryDurations(pool, options.onQuery);
  try {
    const applied = await migrate(pool);
    options.log(`database: migrations ${applied.length ? `applied: ${applied.join(', ')}` : 'up to date'}`);
  } catch (error) {
    await pool.end();
    await connection.stop();
    throw error;
  }
  return {
    pool,
    source: connection.source,
    connectionString: connection.connectionString,
    close: async () => {
      await pool.end();
      await connection.stop();
    },
  };
}
