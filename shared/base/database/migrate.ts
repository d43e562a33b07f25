import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';
import { classifyDatabaseError } from './database-unavailable-error.ts';

/** A migration file, `NNN_name.sql`, identified by its number. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

/** An applied migration's file was edited afterwards; the database no longer matches the code. */
export class MigrationChecksumMismatchError extends Error {
  readonly reason = 'MigrationChecksumMismatch';

  constructor(migration: Migration) {
    super(`migration ${migration.version}_${migration.name} was changed after it was applied`);
    this.name = 'MigrationChecksumMismatchError';
  }
}

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

// One fixed key for the whole service: every instance that migrates takes the same lock.
const MIGRATION_LOCK_KEY = 7_208_413_951;
const MIGRATION_FILE = /^(\d+)_([a-z0-9_]+)\.sql$/;

/** Reads the migration files in version order. */
export async function loadMigrations(directory: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const migrations: Migration[] = [];
  for (const fileName of await readdir(directory)) {
    const match = MIGRATION_FILE.exec(fileName);
    if (!match) continue;
    const sql = await readFile(new URL(fileName, directory), 'utf8');
    const checksum = createHash('sha256').update(sql).digest('hex');
    migrations.push({ version: Number(match[1]), name: match[2]!, sql, checksum });
  }
  return migrations.sort((a, b) => a.version - b.version);
}

/**
 * Applies the pending migrations, each in its own transaction, recorded in `schema_migrations`.
 * An advisory lock serialises instances starting at once; re-running applies nothing. Returns the versions applied.
 */
export async function migrate(pool: pg.Pool, migrations?: Migration[]): Promise<number[]> {
  const toApply = migrations ?? (await loadMigrations());
  // A connection of its own, without the pool's query timeout: waiting for another instance's lock,
  // or building an index on a big table, may rightly take longer than any request should.
  const client = new pg.Client({ ...pool.options, query_timeout: undefined });
  // A lost connection also fails the pending query, which reports it; unheard, the event would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    // A session lock: released by the unlock below, or by the server if the connection dies.
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await applyPending(client, toApply);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } catch (error) {
    throw classifyDatabaseError(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function applyPending(client: pg.Client, migrations: Migration[]): Promise<number[]> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ version: number; checksum: string }>(
    'SELECT version, checksum FROM schema_migrations',
  );
  const appliedChecksums = new Map(rows.map((row) => [row.version, row.checksum]));
  const applied: number[] = [];
  for (const migration of migrations) {
    const appliedChecksum = appliedChecksums.get(migration.version);
    if (appliedChecksum !== undefined) {
      if (appliedChecksum !== migration.checksum) throw new MigrationChecksumMismatchError(migration);
      continue;
    }
    await applyOne(client, migration);
    applied.push(migration.version);
  }
  return applied;
}

async function applyOne(client: pg.Client, migration: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
      migration.version,
      migration.name,
      migration.checksum,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
