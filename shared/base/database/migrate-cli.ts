// Applies the pending migrations to the database of DATABASE_URL and exits: `node shared/base/database/migrate-cli.ts`.
import { loadSettings } from '../config/settings.ts';
import { createDatabasePool } from './database-pool.ts';
import { redactConnectionString } from './database-url.ts';
import { migrate } from './migrate.ts';

let databaseUrl: string | undefined;
try {
  databaseUrl = loadSettings(process.env).database.url;
} catch (error) {
  console.error(`migrate: ${(error as Error).message}`);
  process.exit(2);
}
if (!databaseUrl) {
  console.error('migrate: DATABASE_URL is not set');
  process.exit(2);
}
const pool = createDatabasePool(databaseUrl, (error) =>
  console.error(`migrate: idle connection lost: ${error.message}`),
);
try {
  const applied = await migrate(pool);
  console.log(`migrate: ${redactConnectionString(databaseUrl)} applied [${applied.join(', ')}]`);
} finally {
  await pool.end();
}
