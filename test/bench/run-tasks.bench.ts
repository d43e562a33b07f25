// Issue 48: the cost per row of run task results (migration 013's `run_task_results`), from PostgreSQL's own
// sizes (table, indexes and TOAST) after 10,000 results made as the server makes them: each run recorded with
// its tasks by the one insert of runs, each result's access token issued as a request does, then the task's
// callback read from HCP Terraform's JSON:API document and recorded. Two shapes of answer: a pass with a short
// message and no outcomes, and a failure with a message, a link and the outcome of docs/run-tasks.md's example.
// docs/run-history.md carries the numbers beside the other tables' costs.
import type pg from 'pg';
import { poolDatabase } from '../../shared/base/database/database.ts';
import { insertRun } from '../../shared/domain/runs/records/insert-run.ts';
import { readTaskCallback } from '../../shared/domain/runs/tasks/run-task-protocol.ts';
import { RunTaskResults } from '../../shared/domain/runs/tasks/run-task-results.ts';
import { startTestDatabase } from '../support/test-database.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const RESULTS = 10_000;
const TASKS_PER_RUN = 2;

const passed = { data: { type: 'task-results', attributes: { status: 'passed', message: 'fine' } } };
const failed = {
  data: {
    type: 'task-results',
    attributes: { status: 'failed', message: '1 public bucket', url: 'https://scanner.example.com/r/42' },
    relationships: {
      outcomes: {
        data: [
          {
            type: 'task-result-outcomes',
            attributes: {
              'outcome-id': 'S3-PUBLIC-1',
              description: 'Bucket logs is public',
              body: '## Details\nThe bucket `logs` allows public reads: set `block_public_acls` and `restrict_public_buckets`.',
              url: 'https://scanner.example.com/r/42#1',
              tags: {
                Status: [{ label: 'Denied', level: 'error' }],
                Severity: [{ label: 'High', level: 'error' }],
              },
            },
          },
        ],
      },
    },
  },
};

/** PostgreSQL's size of `run_task_results` with its indexes and TOAST, divided by its rows. */
async function bytesPerResult(pool: pg.Pool): Promise<number> {
  await pool.query('VACUUM ANALYZE run_task_results');
  const { rows } = await pool.query<{ bytes: string; count: string }>(
    `SELECT pg_total_relation_size('run_task_results') AS bytes, (SELECT count(*) FROM run_task_results) AS count`,
  );
  return Number(rows[0]!.bytes) / Number(rows[0]!.count);
}

/** `RESULTS` results, on runs of two tasks each, each answered with `document`. */
async function answeredResults(pool: pg.Pool, document: Record<string, unknown>): Promise<void> {
  const results = new RunTaskResults(poolDatabase(pool));
  const callback = readTaskCallback(document);
  const statement = (text: string, values: unknown[]) => pool.query(text, values);
  for (let run = 0; run < RESULTS / TASKS_PER_RUN; run++) {
    const recorded = await insertRun(statement, {
      project: 'bench',
      workspace: `workspace-${run % 50}`,
      type: 'plan',
      principal: `oidc:user-${run % 500}@example.com`,
      principalType: 'oidc',
      message: `plan ${run}`,
      tasks: {
        stage: 'pre_plan',
        timeoutMs: 600_000,
        tasks: [
          { name: 'cost-estimate', enforcement: 'advisory' },
          { name: 'security-scanner', enforcement: 'mandatory' },
        ],
      },
    });
    for (const result of await results.resultsOf(recorded.id)) {
      await results.issueToken(result.id);
      await results.report(result.id, callback);
    }
  }
}

export const runTasksBenchmark: Benchmark = async () => {
  const database = await startTestDatabase();
  try {
    await answeredResults(database.pool, passed);
    const pass = await bytesPerResult(database.pool);
    await database.pool.query('TRUNCATE runs CASCADE');
    await answeredResults(database.pool, failed);
    const failure = await bytesPerResult(database.pool);
    const rows: BenchRow[] = [
      {
        name: `run_task_results: bytes per row, table, indexes and TOAST (${RESULTS} passed, no outcomes)`,
        value: pass,
        unit: 'B',
      },
      {
        name: `run_task_results: bytes per row, table, indexes and TOAST (${RESULTS} failed, one outcome)`,
        value: failure,
        unit: 'B',
      },
    ];
    return rows;
  } finally {
    await database.destroy();
  }
};
