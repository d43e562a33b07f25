import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { redactConnectionString, resolveDatabase } from '../../../shared/base/database/database-url.ts';
import { openDatabase } from '../../../shared/base/database/open-database.ts';
import { startDevelopmentDatabase } from '../../../infra/development/database/development-database.ts';

describe('DATABASE_URL wins; otherwise PostgreSQL is embedded; the start-up log says which, without secrets', () => {
  it('uses DATABASE_URL as given and logs it with the password hidden', async () => {
    const lines: string[] = [];
    const connection = await resolveDatabase({
      databaseUrl: 'postgres://api:s3cret@db.internal:5432/platform?sslmode=require',
      startEmbedded: () => Promise.reject(new Error('DATABASE_URL is set: nothing embedded starts')),
      log: (line) => lines.push(line),
    });
    expect(connection).toMatchObject({
      source: 'DATABASE_URL',
      connectionString: 'postgres://api:s3cret@db.internal:5432/platform?sslmode=require',
    });
    expect(lines).toEqual([
      'database: using DATABASE_URL postgres://api:***@db.internal:5432/platform?sslmode=require',
    ]);
    await connection.stop();
  });

  it('starts an embedded server in the data folder, reachable even below a folder only root could enter', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'platform-api-embedded-'));
    const dataDir = join(parent, 'nested', 'postgres');
    const lines: string[] = [];
    const connection = await resolveDatabase({
      databaseUrl: undefined,
      startEmbedded: () => startDevelopmentDatabase(dataDir),
      log: (line) => lines.push(line),
    });
    try {
      expect(connection.source).toBe('embedded');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^database: DATABASE_URL not set, using embedded PostgreSQL on 127\.0\.0\.1:\d+ with data in /,
      );
      expect(lines[0]).not.toContain(new URL(connection.connectionString).password);
      const client = new pg.Client(connection.connectionString);
      await client.connect();
      expect((await client.query('SHOW server_version')).rows[0].server_version).toMatch(/^18/);
      await client.end();
      await stat(join(dataDir, 'cluster', 'PG_VERSION'));
    } finally {
      await connection.stop();
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('reopens an initialised data folder quickly, with its data and no migration left to apply', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'platform-api-embedded-'));
    const lines: string[] = [];
    const options = {
      databaseUrl: undefined,
      startEmbedded: () => startDevelopmentDatabase(dataDir),
      log: (line: string) => lines.push(line),
    };
    try {
      const first = await openDatabase(options);
      await first.pool.query(
        `INSERT INTO runs (id, project, workspace, type, phase, principal, principal_type)
         VALUES (gen_random_uuid(), 'p', 'w', 'plan', 'Pending', 'admin', 'admin')`,
      );
      await first.close();
      // An idle connection dropped while closing may be logged after it; the migration line is there either way.
      expect(lines.filter((line) => line.startsWith('database: migrations'))).toEqual([
        expect.stringMatching(/^database: migrations applied: 1/),
      ]);

      const second = await openDatabase(options);
      expect(lines.filter((line) => line.startsWith('database: migrations')).at(-1)).toBe(
        'database: migrations up to date',
      );
      expect((await second.pool.query('SELECT count(*)::int AS n FROM runs')).rows[0].n).toBe(1);
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('redacts passwords in URLs and hides strings it cannot parse', () => {
    expect(redactConnectionString('postgres://u:p%40ss@h/db')).toBe('postgres://u:***@h/db');
    expect(redactConnectionString('postgres://h/db?password=x')).toBe('postgres://h/db?password=***');
    expect(redactConnectionString('postgres://u@h/db')).toBe('postgres://u@h/db');
    expect(redactConnectionString('host=h password=x')).not.toContain('x');
  });
});
