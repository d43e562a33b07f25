import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool } from '../../../shared/base/database/database-pool.ts';
import { loadMigrations, migrate, MigrationChecksumMismatchError } from '../../../shared/base/database/migrate.ts';
import { startTestDatabase } from '../../support/test-database.ts';
import type { TestDatabase } from '../../support/test-database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await startTestDatabase();
});
afterAll(() => database.destroy());

/** A connection string for a new, empty database on the shared test server. */
async function freshDatabase(name: string): Promise<string> {
  await database.pool.query(`CREATE DATABASE ${name}`);
  const url = new URL(database.connectionString);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withPool<T>(connectionString: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = createDatabasePool(connectionString, () => undefined);
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

describe('migrations are applied on start, recorded in schema_migrations, and re-running them changes nothing', () => {
  it('records every migration file once with its checksum', async () => {
    const migrations = await loadMigrations();
    const { rows } = await database.pool.query(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    expect(rows).toEqual(migrations.map(({ version, name, checksum }) => ({ version, name, checksum })));
  });

  it('applies nothing the second time and keeps the data', async () => {
    await database.pool.query(
      `INSERT INTO runs (id, project, workspace, type, phase, principal, principal_type)
       VALUES (gen_random_uuid(), 'p', 'w', 'plan', 'Pending', 'admin', 'admin')`,
    );
    expect(await migrate(database.pool)).toEqual([]);
    expect(await migrate(database.pool)).toEqual([]);
    const { rows } = await database.pool.query('SELECT count(*)::int AS n FROM runs');
    expect(rows[0].n).toBe(1);
  });

  it('refuses to start when an applied migration file was edited afterwards', async () => {
    const [first] = await loadMigrations();
    const edited = { ...first!, sql: `${first!.sql}\n-- edited`, checksum: 'different' };
    await expect(migrate(database.pool, [edited])).rejects.toBeInstanceOf(MigrationChecksumMismatchError);
    await expect(migrate(database.pool, [edited])).rejects.toMatchObject({ reason: 'MigrationChecksumMismatch' });
  });
});

describe('each migration runs in its own transaction: a failing one leaves no trace, earlier ones stay', () => {
  it('rolls back the failing migration and records only the ones before it', async () => {
    const connectionString = await freshDatabase('partial_migration');
    const directory = await mkdtemp(join(tmpdir(), 'platform-api-migrations-'));
    try {
      await writeFile(join(directory, '001_first.sql'), 'CREATE TABLE first_table (id int);');
      await writeFile(join(directory, '002_broken.sql'), 'CREATE TABLE second_table (id int); SELECT 1/0;');
      const migrations = await loadMigrations(pathToFileURL(`${directory}/`));
      await withPool(connectionString, async (pool) => {
        await expect(migrate(pool, migrations)).rejects.toThrow(/division by zero/);
        const versions = await pool.query('SELECT version FROM schema_migrations');
        expect(versions.rows).toEqual([{ version: 1 }]);
        const tables = await pool.query(
          "SELECT table_name FROM information_schema.tables WHERE table_name IN ('first_table', 'second_table')",
        );
        expect(tables.rows).toEqual([{ table_name: 'first_table' }]);
      });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

/** Runs the migration command in its own node process; resolves to its exit code and output. */
function runMigrateProcess(connectionString: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['shared/base/database/migrate-cli.ts'], {
    cwd: join(import.meta.dirname, '../../..'),
    env: { ...process.env, DATABASE_URL: connectionString },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('several instances starting at once migrate safely: the advisory lock serialises them', () => {
  it('two separate processes migrating the same empty database both succeed and create one set of tables', async () => {
    const connectionString = await freshDatabase('concurrent_migration');
    const results = await Promise.all([runMigrateProcess(connectionString), runMigrateProcess(connectionString)]);
    for (const result of results) expect(result.code, result.output).toBe(0);

    const appliedLists = results.map((result) => /applied \[(.*)\]/.exec(result.output)?.[1]).sort();
    expect(appliedLists).toEqual(['', (await loadMigrations()).map((m) => m.version).join(', ')]);
    for (const result of results) expect(result.output).not.toContain(new URL(connectionString).password);

    await withPool(connectionString, async (pool) => {
      const versions = await pool.query('SELECT version FROM schema_migrations');
      expect(versions.rows.length).toBe((await loadMigrations()).length);
      const tables = await pool.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      );
      // audit_events is partitioned: its day partitions appear once events are written.
      expect(tables.rows.map((row) => row.table_name)).toEqual([
        'approval_gate_states',
        'audit_events',
        'login_failures',
        'outbound_attempts',
        'outbound_deliveries',
        'outbox_events',
        'outbox_source_passes',
        'plan_approvals',
        'project_tokens',
        'rollout_stage_states',
        'run_log_blocks',
        'run_log_lines',
        'run_plan_json',
        'run_task_results',
        'runs',
        'schema_migrations',
        'stream_instances',
        'stream_slots',
      ]);
    });
  });
});

describe('Issue 20: migration 005 binds the leases taken before it to the controller that claimed them', () => {
  it('fills lease_holder from the recorded controller, its type told by its form, and leaves runs without a lease alone', async () => {
    const connectionString = await freshDatabase('lease_holder_backfill');
    const migrations = await loadMigrations();
    await withPool(connectionString, async (pool) => {
      await migrate(
        pool,
        migrations.filter((migration) => migration.version < 5),
      );
      const leased = (controller: string | null, leaseId: string | null) =>
        pool.query(
          `INSERT INTO runs (id, project, workspace, type, phase, principal, principal_type, controller, lease_id, lease_expires_at)
           VALUES (gen_random_uuid(), 'p', $1, 'plan', 'Running', 'admin', 'admin', $2, $3::uuid, now() + interval '1 minute')`,
          [`w-${controller ?? 'none'}`, controller, leaseId],
        );
      await leased('system:serviceaccount:platform:controller', '0190a0a0-0000-7000-8000-000000000001');
      await leased('admin', '0190a0a0-0000-7000-8000-000000000002');
      await leased('alice@example.com', '0190a0a0-0000-7000-8000-000000000003');
      await leased(null, null);
      expect(
        await migrate(
          pool,
          migrations.filter((migration) => migration.version <= 5),
        ),
      ).toEqual([5]);
      const { rows } = await pool.query('SELECT workspace, lease_holder FROM runs ORDER BY workspace');
      expect(rows).toEqual([
        { workspace: 'w-admin', lease_holder: 'admin:admin' },
        { workspace: 'w-alice@example.com', lease_holder: 'oidc:alice@example.com' },
        { workspace: 'w-none', lease_holder: null },
        {
          workspace: 'w-system:serviceaccount:platform:controller',
          lease_holder: 'serviceaccount:system:serviceaccount:platform:controller',
        },
      ]);
    });
  });
});
