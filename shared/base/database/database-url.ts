/** The database the service uses, and how to let go of it. */
export interface DatabaseConnection {
  /** May contain a password: log `redactConnectionString(connectionString)` instead. */
  connectionString: string;
  source: 'DATABASE_URL' | 'embedded';
  /** Stops the embedded server; does nothing for an external database. */
  stop(): Promise<void>;
}

/** A PostgreSQL server started in this process for local development, as its starter hands it over. */
export interface StartedEmbeddedDatabase {
  /** Contains the generated password: never log it unredacted. */
  connectionString: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts local development's embedded PostgreSQL. The development entries hand one over
 * (DevelopmentServices, infra/development/development-services.ts); the product names none.
 */
export type EmbeddedDatabaseStarter = () => Promise<StartedEmbeddedDatabase>;

/** Where to find or put the database, and where to say which one was chosen. */
export interface ResolveDatabaseOptions {
  /** `DATABASE_URL` (the database settings' `url`): wins when set. */
  databaseUrl: string | undefined;
  /** Started when DATABASE_URL is unset; without one, no database can be opened. */
  startEmbedded?: EmbeddedDatabaseStarter;
  log: (line: string) => void;
}

/** Uses `DATABASE_URL` when set, otherwise starts the embedded PostgreSQL; logs which one, without secrets. */
export async function resolveDatabase(options: ResolveDatabaseOptions): Promise<DatabaseConnection> {
  const { databaseUrl } = options;
  if (databaseUrl) {
    options.log(`database: using DATABASE_URL ${redactConnectionString(databaseUrl)}`);
    return { connectionString: databaseUrl, source: 'DATABASE_URL', stop: async () => {} };
  }
  if (!options.startEmbedded) throw new Error('DATABASE_URL is not set, and this process has no embedded database');
  const embedded = await options.startEmbedded();
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
