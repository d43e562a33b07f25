import type pg from 'pg';
import { boundedQuery } from '../database/bounded-query.ts';
import { classifyDatabaseError } from '../database/database-unavailable-error.ts';
import type { PrincipalType, Run, RunLogLine, RunPhase, RunType } from './run.ts';

/** A `runs` row as `RUN_COLUMNS` selects it. */
export interface RunRow {
  id: string;
  project: string;
  workspace: string;
  type: RunType;
  phase: RunPhase;
  principal: string;
  principal_type: PrincipalType;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  log_removed_at: Date | null;
  message: string;
  status_message: string;
  attempts: number;
  controller: string | null;
  cancel_requested_at: Date | null;
  cancel_requested_by: string | null;
  plan_run: string | null;
}

/** The columns of a `Run`; the lease itself is never among them. */
export const RUN_COLUMNS =
  'id, project, workspace, type, phase, principal, principal_type, created_at, started_at, finished_at, log_removed_at, message, status_message, attempts, controller, cancel_requested_at, cancel_requested_by, plan_run';

export function toRun(row: RunRow): Run {
  return {
    id: row.id,
    project: row.project,
    workspace: row.workspace,
    type: row.type,
    phase: row.phase,
    principal: row.principal,
    principalType: row.principal_type,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    logRemovedAt: row.log_removed_at?.toISOString() ?? null,
    message: row.message,
    statusMessage: row.status_message,
    attempts: row.attempts,
    controller: row.controller,
    cancelRequestedAt: row.cancel_requested_at?.toISOString() ?? null,
    cancelRequestedBy: row.cancel_requested_by,
    planRun: row.plan_run,
  };
}

export function toLogLine(row: { seq: string; line: string }): RunLogLine {
  return { seq: Number(row.seq), line: row.line };
}

/**
 * One statement on the pool, bounded by `signal` when given (a request's deadline: boundedQuery); a server
 * that cannot be reached surfaces as `DatabaseUnavailableError`.
 */
export async function queryRuns<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: unknown[],
  signal?: AbortSignal,
): Promise<pg.QueryResult<Row>> {
  try {
    return await (signal ? boundedQuery<Row>(pool, text, values, signal) : pool.query<Row>(text, values));
  } catch (error) {
    throw classifyDatabaseError(error);
  }
}

/** Runs a statement on the transaction's connection; failures classified like `queryRuns`. */
export type TransactionQuery = <Row extends pg.QueryResultRow>(
  text: string,
  values: unknown[],
) => Promise<pg.QueryResult<Row>>;

/**
 * `work` in one transaction on one pooled connection: committed when it resolves, rolled back when it
 * throws (its error is rethrown). For decisions that must read and write under the same row lock.
 */
export async function inRunTransaction<T>(pool: pg.Pool, work: (query: TransactionQuery) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw classifyDatabaseError(error);
  }
  const query: TransactionQuery = async (text, values) => {
    try {
      return await client.query(text, values);
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  };
  let broken: unknown;
  try {
    await query('BEGIN', []);
    const result = await work(query);
    await query('COMMIT', []);
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError));
    throw error;
  } finally {
    // A connection whose rollback failed is in an unknown state: it is dropped, not reused.
    client.release(broken instanceof Error ? broken : undefined);
  }
}
