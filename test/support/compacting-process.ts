// A compactor as its own OS process (so a test can kill it mid-step): `node
// test/support/compacting-process.ts` with DATABASE_URL, RUN_ID and STEP_LINES set compacts that
// run's log in steps of STEP_LINES lines, on connections named `compacting-process`, then exits 0.
import { createDatabasePool } from '../../shared/base/database/database-pool.ts';
import { RunLogCompactor } from '../../shared/domain/runs/logs/run-log-compaction.ts';
import { poolDatabase } from '../../shared/base/database/database.ts';

const setting = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

/** The application name the test finds this process's connections by, in pg_stat_activity. */
export const COMPACTING_PROCESS = 'compacting-process';

if (import.meta.main) {
  const pool = createDatabasePool(setting('DATABASE_URL'), () => undefined, {
    application_name: COMPACTING_PROCESS,
    query_timeout: 120_000,
  });
  const done = await new RunLogCompactor(poolDatabase(pool), {
    delayMs: 0,
    linesPerStep: Number(setting('STEP_LINES')),
    restRatio: 0,
  }).compactRun(setting('RUN_ID'));
  process.stdout.write(`${JSON.stringify(done)}\n`);
  await pool.end();
}
