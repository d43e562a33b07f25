// Issue 22, item 6, "recording stays off the request's critical path": requests the default policy
// records (refusals: a GET whoami with a token the server does not accept, 401), through the container
// entry (the resources bundle), with auditing off (AUDIT_POLICY=None) beside the default policy
// writing to standard output, and to standard output and PostgreSQL (batched inserts), all measured
// in the same run. Target: >= 0.9 of auditing off.
import { startTestDatabase } from '../runs/test-database.ts';
import { migrate } from '../../shared/database/migrate.ts';
import { WHOAMI, bundleSetup, ratioRow, throughputs } from './bundle-setup.ts';
import type { Benchmark } from './bench-row.ts';

export const auditBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  const database = await startTestDatabase();
  try {
    await migrate(database.pool);
    const refused = { authorization: 'Bearer not-a-token-the-server-issued' };
    const subject = (name: string, env: Record<string, string>) => ({
      name,
      script: setup.bundleEntry,
      readyPath: '/healthz',
      path: WHOAMI,
      headers: refused,
      expectedStatus: 401,
      env: { ...setup.env, FUNCTION_TARGET: 'resources', ...env },
    });
    const [off, stdout, withDatabase] = await throughputs([
      subject('auditing off', { AUDIT_POLICY: 'None' }),
      subject('default policy, standard output', {}),
      subject('default policy, standard output and PostgreSQL', { DATABASE_URL: database.connectionString }),
    ]);
    const { rows } = await database.pool.query<{ count: string }>('SELECT count(*) FROM audit_events');
    const name = 'refused GET whoami (each one recorded), resources bundle';
    const target = (ratio: number) => ratio >= 0.9;
    return [
      ratioRow(`${name}, audit to standard output`, stdout!, 'req/s', 'auditing off', off!, '>= 0.9', target),
      ratioRow(
        `${name}, audit to standard output and PostgreSQL (${rows[0]!.count} events stored)`,
        withDatabase!,
        'req/s',
        'auditing off',
        off!,
        '>= 0.9',
        target,
      ),
    ];
  } finally {
    await database.destroy();
  }
};
