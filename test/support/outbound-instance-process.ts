// An instance of the platform as its own OS process (so a test can SIGKILL it): `node
// test/support/outbound-instance-process.ts` with DATABASE_URL and RECEIVER_URL set records a new run
// (its event in the same transaction), prints the run's id, then sweeps the outbox once towards the receiver.
import { createDatabasePool } from '../../shared/base/database/database-pool.ts';
import { createLogger } from '../../shared/base/logging/logger.ts';
import { OutboundEngine } from '../../shared/domain/outbound/outbound-engine.ts';
import { poolDatabase } from '../../shared/base/database/database.ts';
import { RunRecords } from '../../shared/domain/runs/records/run-records.ts';
import { newRun, testOutboundSettings, testReceivers } from './outbound-fixtures.ts';

const setting = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

if (import.meta.main) {
  const pool = createDatabasePool(setting('DATABASE_URL'), () => undefined);
  const database = poolDatabase(pool);
  const run = await new RunRecords(database).createRun(newRun('killed'));
  process.stdout.write(`${run.id}\n`);
  const outbound = new OutboundEngine(
    database,
    [testReceivers(new Map([['target', setting('RECEIVER_URL')]]))],
    testOutboundSettings({ OUTBOUND_TIMEOUT: '2s' }),
    createLogger({ level: 'error' }),
  );
  await outbound.sweep();
  await pool.end();
}
