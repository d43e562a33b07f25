import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { createDatabasePool } from '../../shared/base/database/database-pool.ts';
import { startEmbeddedDatabase } from '../../infra/development/database/embedded-database.ts';
import { migrate } from '../../shared/base/database/migrate.ts';
import { encodeContinueToken } from '../../shared/domain/runs/records/continue-token.ts';
import { PROCESS_PAGE_TOKENS } from '../../shared/base/database/page-tokens.ts';
import { testRuns, type TestRuns } from '../support/test-runs.ts';
import type { ListRunsQuery } from '../../shared/domain/runs/records/run-records.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const LARGE_TABLE_ROWS = 1_000_000;
const BASELINE_TABLE_ROWS = 1_000;
const PROJECTS = 4;
const WORKSPACES_PER_PROJECT = 5;
const PAGE_SIZE = 50;
const SAMPLES = 1_000;
const WARM_UP_SAMPLES = 100;
const P50_TARGET_MS = 5;

/**
 * Seeds `rows` runs in one statement, spread round-robin over the projects and workspaces,
 * one second apart, with some sharing a timestamp so the id tie-breaker is exercised too.
 */
async function seedRuns(pool: pg.Pool, rows: number): Promise<void> {
  await pool.query(
    `INSERT INTO runs (id, project, workspace, type, phase, principal, principal_type, created_at)
     SELECT gen_random_uuid(),
            'project-' || (i % $2),
            'workspace-' || ((i / $2) % $3),
            CASE WHEN i % 3 = 0 THEN 'apply' ELSE 'plan' END,
            'Succeeded',
            'system:serviceaccount:platform:workspace-controller',
            'serviceaccount',
            timestamptz '2024-01-01T00:00:00Z' + (i / 2) * interval '1 second'
     FROM generate_series(1, $1) AS i`,
    [rows, PROJECTS, WORKSPACES_PER_PROJECT],
  );
  await pool.query('ANALYZE runs');
}

/** A migrated database with `rows` runs, in its own database on the shared server. */
async function seededStore(adminPool: pg.Pool, connectionString: string, name: string, rows: number) {
  await adminPool.query(`CREATE DATABASE ${name}`);
  const url = new URL(connectionString);
  url.pathname = `/${name}`;
  const pool = createDatabasePool(url.toString(), () => undefined, { query_timeout: 120_000 });
  await migrate(pool);
  await seedRuns(pool, rows);
  return { pool, store: testRuns(pool) };
}

/** Continue tokens at `count` random deep positions of a workspace (past the first tenth of it). */
async function deepContinueTokens(pool: pg.Pool, count: number): Promise<string[]> {
  const { rows } = await pool.query<{ created_at: Date; id: string }>(
    `SELECT created_at, id FROM runs WHERE project = 'project-0' AND workspace = 'workspace-0'
     ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT $2`,
    [Math.floor(LARGE_TABLE_ROWS / PROJECTS / WORKSPACES_PER_PROJECT / 10), count * 100],
  );
  return rows
    .filter((_, index) => index % 100 === 0)
    .map((row) =>
      // The store signs with PROCESS_PAGE_TOKENS, its default: the token is one it reads back.
      encodeContinueToken(PROCESS_PAGE_TOKENS, ['runs', 'project-0', 'workspace-0'], {
        createdAt: row.created_at.toISOString(),
        id: row.id,
      }),
    );
}

interface Latency {
  p50: number;
  p99: number;
}

/** Latency percentiles of `store.listRuns`, called with the query for each sample in turn, after a warm-up. */
async function measure(store: TestRuns, queryFor: (sample: number) => ListRunsQuery): Promise<Latency> {
  for (let sample = 0; sample < WARM_UP_SAMPLES; sample++) await store.records.listRuns(queryFor(sample));
  const timings: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const started = performance.now();
    const page = await store.records.listRuns(queryFor(sample));
    timings.push(performance.now() - started);
    if (page.items.length !== PAGE_SIZE) throw new Error(`expected a full page, got ${page.items.length} runs`);
  }
  timings.sort((a, b) => a - b);
  return { p50: timings[Math.floor(SAMPLES * 0.5)]!, p99: timings[Math.floor(SAMPLES * 0.99)]! };
}

const workspaceQuery = (sample: number): ListRunsQuery => ({
  project: `project-${sample % PROJECTS}`,
  workspace: `workspace-${sample % WORKSPACES_PER_PROJECT}`,
  limit: PAGE_SIZE,
});
const projectQuery = (sample: number): ListRunsQuery => ({ project: `project-${sample % PROJECTS}`, limit: PAGE_SIZE });

function latencyRows(label: string, measured: Latency, baseline: Latency): BenchRow[] {
  const baselineName = `same query, ${BASELINE_TABLE_ROWS.toLocaleString('en')} runs`;
  const row = (percentile: 'p50' | 'p99'): BenchRow => ({
    name: `listRuns ${label}, page of ${PAGE_SIZE}, ${LARGE_TABLE_ROWS.toLocaleString('en')} runs, ${percentile}`,
    value: round(measured[percentile]),
    unit: 'ms',
    baselineName: `${baselineName}, ${percentile}`,
    baselineValue: round(baseline[percentile]),
    ratio: round(measured[percentile] / baseline[percentile]),
  });
  return [{ ...row('p50'), target: `<= ${P50_TARGET_MS} ms`, met: measured.p50 <= P50_TARGET_MS }, row('p99')];
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** Lists runs from a 1,000,000-run table (first and deep pages) against the same query on 1,000 runs. */
export const runListBenchmark: Benchmark = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-api-bench-runs-'));
  const server = await startEmbeddedDatabase({ dataDir });
  const adminPool = createDatabasePool(server.connectionString, () => undefined);
  const pools: pg.Pool[] = [adminPool];
  try {
    const large = await seededStore(adminPool, server.connectionString, 'runs_large', LARGE_TABLE_ROWS);
    const small = await seededStore(adminPool, server.connectionString, 'runs_baseline', BASELINE_TABLE_ROWS);
    pools.push(large.pool, small.pool);

    const baselineWorkspace = await measure(small.store, workspaceQuery);
    const baselineProject = await measure(small.store, projectQuery);
    const deepTokens = await deepContinueTokens(large.pool, 50);
    const deepQuery = (sample: number): ListRunsQuery => ({
      project: 'project-0',
      workspace: 'workspace-0',
      limit: PAGE_SIZE,
      continue: deepTokens[sample % deepTokens.length]!,
    });
    return [
      ...latencyRows('workspace, first page', await measure(large.store, workspaceQuery), baselineWorkspace),
      ...latencyRows('project, first page', await measure(large.store, projectQuery), baselineProject),
      ...latencyRows('workspace, deep page via continue', await measure(large.store, deepQuery), baselineWorkspace),
    ];
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};
