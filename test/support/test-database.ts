import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { createDatabasePool } from '../../shared/base/database/database-pool.ts';
import { startEmbeddedDatabase } from '../../infra/development/database/embedded-database.ts';
import type { EmbeddedDatabase } from '../../infra/development/database/embedded-database.ts';
import { migrate } from '../../shared/base/database/migrate.ts';

/** A real embedded PostgreSQL in a fresh temporary data folder, migrated, with a pool onto it. */
export interface TestDatabase {
  pool: pg.Pool;
  connectionString: string;
  /** Stops the server, keeping its data folder and port. */
  stopServer(): Promise<void>;
  /** Starts the server again on the same data folder and port. */
  startServer(): Promise<void>;
  /** Stops everything and deletes the data folder. */
  destroy(): Promise<void>;
}

/** Starts one server for a test file; call `destroy` in `afterAll`. */
export async function startTestDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-api-runs-'));
  let server: EmbeddedDatabase = await startEmbeddedDatabase({ dataDir });
  // Idle connections dropped by a deliberate server stop are expected here.
  const pool = createDatabasePool(server.connectionString, () => undefined);
  await migrate(pool);
  return {
    pool,
    connectionString: server.connectionString,
    stopServer: () => server.stop(),
    startServer: async () => {
      server = await startEmbeddedDatabase({ dataDir, port: server.port });
    },
    destroy: async () => {
      await pool.end();
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Pools of their own onto the database, one per instance a test plays; end them in `afterAll`. */
export function instancePools(database: Pick<TestDatabase, 'connectionString'>, count: number): pg.Pool[] {
  return Array.from({ length: count }, () => createDatabasePool(database.connectionString, () => undefined));
}
