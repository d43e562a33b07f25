import type pg from 'pg';
import { poolDatabase } from '../../shared/base/database/database.ts';
import type { PageTokens } from '../../shared/base/database/page-tokens.ts';
import { RunNotFoundError } from '../../shared/domain/runs/run-errors.ts';
import { toLogLine } from '../../shared/domain/runs/records/run-row.ts';
import type { RunLogLine } from '../../shared/domain/runs/run.ts';
import { createRunServices, type RunServices } from '../../shared/domain/runs/run-services.ts';
import type { RunLogListenerLimits } from '../../shared/domain/runs/logs/run-log-listener.ts';

/** The run services on a test's pool, wired as the app context wires them, plus the SQL fixture below. */
export type TestRuns = RunServices & {
  /** Appends lines with no lease and no masking (appendLogLinesBySql): for tests that need a log, not a controller. */
  appendLogLines(runId: string, lines: readonly string[]): Promise<RunLogLine[]>;
};

export function testRuns(
  pool: pg.Pool,
  options: { pageTokens?: PageTokens; listenerLimits?: RunLogListenerLimits } = {},
): TestRuns {
  const services = createRunServices(poolDatabase(pool), pool.options, options);
  return { ...services, appendLogLines: (runId, lines) => appendLogLinesBySql(pool, runId, lines) };
}

/**
 * A test fixture, not a product path: appends lines to run `runId`'s log, numbered after its last line,
 * in one statement, without a lease and without masking (the product stores lines only through
 * RunLogChunks, under lease, masked).
 */
export async function appendLogLinesBySql(
  pool: pg.Pool,
  runId: string,
  lines: readonly string[],
): Promise<RunLogLine[]> {
  if (lines.length === 0) return [];
  const { rows } = await poolDatabase(pool).query<{ seq: string; line: string }>(
    `WITH reserved AS (
       UPDATE runs SET last_log_seq = last_log_seq + cardinality($2::text[])
       WHERE id = $1 RETURNING last_log_seq - cardinality($2::text[]) AS first_seq_minus_one
     )
     INSERT INTO run_log_lines (run_id, seq, line)
     SELECT $1, reserved.first_seq_minus_one + appended.ordinal, appended.line
     FROM reserved, unnest($2::text[]) WITH ORDINALITY AS appended (line, ordinal)
     RETURNING seq, line`,
    [runId, lines],
  );
  if (rows.length === 0) throw new RunNotFoundError(runId);
  return rows.map(toLogLine).sort((a, b) => a.seq - b.seq);
}
