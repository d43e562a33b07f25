// Issue 36, "Show": what counting failed logins where every instance sees them costs the login
// path. The login function's bundle twice, measured in the same run and loaded in turn: with
// DATABASE_URL (the shared count: one statement per attempt, before the comparison) beside without
// (the per-process count, the baseline), both loaded at once so that they meet the same moments of
// a shared machine. Three workloads:
// - wrong passwords that are compared (budgets out of reach): bcrypt's queue sets the pace, and the
//   statement must not show in it. Targets: throughput >= 0.9 of the per-process count, p99 <= 1.25x.
// - attempts refused because the account's budget is spent (what an attack mostly is once it is):
//   no comparison, so the statement is most of the work. Shown, no target.
// - the right password, one at a time (counted, then given back: two statements). Shown, no target.
// And the cost per row of the tables migration 008 adds (table and indexes, from PostgreSQL's own
// sizes after 10,000 rows), for docs/run-history.md's capacity model.
import type pg from 'pg';
import { DatabaseLoginFailures } from '../../shared/auth/database-login-failures.ts';
import { loginKeys } from '../../shared/auth/login-failure-store.ts';
import { startTestDatabase } from '../support/test-database.ts';
import { spawnNodeProcess, type FunctionProcess } from '../support/function-servers.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';
import { bundleSetup, ratioRow } from './bundle-setup.ts';
import { percentile, runLoad, type LoadResult } from './http-load.ts';
import { poolDatabase } from '../../shared/base/database/database.ts';

const LOGIN = '/api/v1alpha1/auth/login';
const PASSWORD = 'bench password';
const ROUNDS = 3;
const SECONDS = 8;
const ROWS = 10_000;

type Budgets = 'out of reach' | 'spent';

/** The login function from the bundle, with the shared count (a database) or the per-process one. */
async function loginProcess(
  bundleEntry: string,
  env: Record<string, string>,
  databaseUrl: string | undefined,
  budgets: Budgets,
): Promise<FunctionProcess> {
  return spawnNodeProcess(
    bundleEntry,
    {
      ...env,
      FUNCTION_TARGET: 'login',
      TRUSTED_PROXY_HOPS: '1',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...(budgets === 'out of reach'
        ? { LOGIN_ACCOUNT_MAX_FAILURES: '1000000', LOGIN_CLIENT_MAX_FAILURES: '1000' }
        : { LOGIN_ACCOUNT_MAX_FAILURES: '1' }),
    },
    '/healthz',
    { drainStdoutElsewhere: true },
  );
}

const attempt = (process: FunctionProcess, concurrency: number, password: string) =>
  runLoad(`${process.url}${LOGIN}`, {
    method: 'POST',
    concurrency,
    durationMs: SECONDS * 1000,
    headers: (client) => ({ authorization: `Bearer ${password}`, 'x-forwarded-for': `198.18.0.${client + 1}` }),
  });

/**
 * Both subjects loaded at once, ROUNDS times: they meet the same moments of a shared machine, so
 * the ratio is fair. Throughput over all rounds; the p99 of every request of every round.
 */
async function together(subjects: FunctionProcess[], load: (subject: FunctionProcess) => Promise<LoadResult>) {
  await Promise.all(subjects.map(load));
  const results = subjects.map((): LoadResult[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    const loads = await Promise.all(subjects.map(load));
    for (const [index, result] of loads.entries()) results[index]!.push(result);
  }
  return results.map((loads) => {
    const latencies = loads.flatMap((result) => result.latenciesMs).sort((a, b) => a - b);
    return {
      perSecond: loads.reduce((sum, result) => sum + result.requests, 0) / (ROUNDS * SECONDS),
      p99Ms: percentile(latencies, 0.99),
      requests: latencies.length,
      statuses: loads.flatMap((result) => Object.keys(result.statuses)),
    };
  });
}

async function workload(
  name: string,
  subjects: FunctionProcess[],
  load: (subject: FunctionProcess) => Promise<LoadResult>,
  expected: string,
  targets: { throughput?: number; p99?: number },
): Promise<BenchRow[]> {
  const [shared, perProcess] = await together(subjects, load);
  for (const measured of [shared!, perProcess!]) {
    if (measured.statuses.some((status) => status !== expected))
      throw new Error(`${name}: answers ${[...new Set(measured.statuses)].join(', ')}, expected ${expected}`);
  }
  return [
    ratioRow(
      `${name}: throughput, shared count (both loaded at once, ${ROUNDS} rounds of ${SECONDS} s)`,
      shared!.perSecond,
      'req/s',
      'per-process count',
      perProcess!.perSecond,
      targets.throughput === undefined ? '' : `>= ${targets.throughput}`,
      targets.throughput === undefined ? undefined : (ratio) => ratio >= targets.throughput!,
    ),
    ratioRow(
      `${name}: p99 of all ${shared!.requests} requests, shared count`,
      shared!.p99Ms,
      'ms',
      `per-process count (${perProcess!.requests} requests)`,
      perProcess!.p99Ms,
      targets.p99 === undefined ? '' : `<= ${targets.p99}x`,
      targets.p99 === undefined ? undefined : (ratio) => ratio <= targets.p99!,
    ),
  ];
}

/** The right password, one login at a time, from a new client each time: p50 and p99. */
async function rightPassword(subjects: FunctionProcess[]): Promise<BenchRow[]> {
  const latencies = subjects.map((): number[] => []);
  for (let round = 0; round < 60; round++) {
    for (const [index, subject] of subjects.entries()) {
      const begin = performance.now();
      const response = await fetch(`${subject.url}${LOGIN}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${PASSWORD}`, 'x-forwarded-for': `198.19.${index}.${round + 1}` },
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`the right password answered ${response.status}`);
      if (round >= 5) latencies[index]!.push(performance.now() - begin);
    }
  }
  const [shared, perProcess] = latencies.map((values) => [...values].sort((a, b) => a - b));
  return [0.5, 0.99].map((quantile) =>
    ratioRow(
      `right password, one at a time: p${quantile * 100}, shared count (counted, then given back)`,
      percentile(shared!, quantile),
      'ms',
      'per-process count',
      percentile(perProcess!, quantile),
      '',
    ),
  );
}

/** PostgreSQL's size of a table with its indexes and TOAST, divided by its rows. */
async function bytesPerRow(pool: pg.Pool, table: string): Promise<number> {
  await pool.query(`VACUUM ANALYZE ${table}`);
  const { rows } = await pool.query<{ bytes: string; count: string }>(
    `SELECT pg_total_relation_size($1::regclass) AS bytes, (SELECT count(*) FROM ${table}) AS count`,
    [table],
  );
  return Number(rows[0]!.bytes) / Number(rows[0]!.count);
}

/** The cost per row of migration 008's tables, from rows made the way the server makes them. */
async function costPerRow(pool: pg.Pool): Promise<BenchRow[]> {
  await pool.query('DELETE FROM login_failures');
  const store = new DatabaseLoginFailures(poolDatabase(pool));
  const budgets = { windowMs: 300_000, accountMax: 1_000_000, clientMax: 5 };
  const at = Date.now();
  for (let client = 0; client < ROWS; client++) {
    const address =
      client % 2 ? `2001:db8:${client.toString(16)}:1:0:0:0:0/64` : `198.18.${client >> 8}.${client & 255}`;
    await store.admit(loginKeys('admin', address), budgets, at);
  }
  const login = await bytesPerRow(pool, 'login_failures');
  const instances = Array.from({ length: 10 }, () => crypto.randomUUID());
  for (let slot = 0; slot < ROWS; slot++) {
    await pool.query(`SELECT taken FROM take_stream_slot($1, $2, 'run_log', $3, 1000000, '30 seconds')`, [
      crypto.randomUUID(),
      instances[slot % instances.length],
      `oidc:user-${slot % 500}@example.com`,
    ]);
  }
  const slots = await bytesPerRow(pool, 'stream_slots');
  await pool.query('DELETE FROM stream_instances');
  await pool.query(
    `INSERT INTO stream_instances (instance, heartbeat_at) SELECT gen_random_uuid(), now() FROM generate_series(1, ${ROWS})`,
  );
  const instanceRows = await bytesPerRow(pool, 'stream_instances');
  await pool.query('DELETE FROM stream_instances');
  return [
    { name: `login_failures: bytes per row, table and index (${ROWS} clients)`, value: login, unit: 'B' },
    { name: `stream_slots: bytes per row, table and indexes (${ROWS} streams)`, value: slots, unit: 'B' },
    { name: `stream_instances: bytes per row, table and indexes (${ROWS} instances)`, value: instanceRows, unit: 'B' },
  ];
}

export const loginBenchmark: Benchmark = async () => {
  const { bundleEntry, env } = await bundleSetup();
  const database = await startTestDatabase();
  const rows: BenchRow[] = [];
  const started: FunctionProcess[] = [];
  const subjects = async (budgets: Budgets) => {
    const pair = [
      await loginProcess(bundleEntry, env, database.connectionString, budgets),
      await loginProcess(bundleEntry, env, undefined, budgets),
    ];
    started.push(...pair);
    return pair;
  };
  try {
    const compared = await subjects('out of reach');
    rows.push(
      ...(await workload(
        'wrong passwords, compared (4 clients each)',
        compared,
        (subject) => attempt(subject, 4, 'wrong password'),
        '403',
        { throughput: 0.9, p99: 1.25 },
      )),
      ...(await rightPassword(compared)),
    );
    const refused = await subjects('spent');
    rows.push(
      ...(await workload(
        "refused, the account's budget spent (16 clients each)",
        refused,
        (subject) => attempt(subject, 16, 'wrong password'),
        '429',
        {},
      )),
    );
    rows.push(...(await costPerRow(database.pool)));
    return rows;
  } finally {
    await Promise.all(started.map((process) => process.stop()));
    await database.destroy();
  }
};
