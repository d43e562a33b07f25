import type pg from 'pg';
import type { NewRun, Run } from '../run.ts';
import type { TasksToAwait } from '../tasks/run-task-protocol.ts';
import { insertPendingTaskResults, pendingTaskResultValues } from '../tasks/pending-task-results.ts';
import { newRunId } from './run-id.ts';
import { RUN_COLUMNS, toRun, type RunRow } from './run-row.ts';
import { validateNewRun } from './validate-new-run.ts';

/** One statement, on the pool (with the request's deadline) or on a transaction's connection. */
export type Statement = <Row extends pg.QueryResultRow>(
  text: string,
  values: unknown[],
) => Promise<pg.QueryResult<Row>>;

/** A new run; `planRun`: the succeeded plan an apply run was approved from (issue 37). */
export interface RunToInsert extends NewRun {
  planRun?: string;
  /** The run tasks of its stage (issue 48): with any, the run waits in `AwaitingTasks` with a result per task. */
  tasks?: TasksToAwait;
}

/**
 * The one insert of a run, for a user's new run (RunRecords.createRun) and for the apply run a plan's
 * approval makes (PlanApprovals.approveForApply): checked, recorded `Pending` with a fresh UUIDv7 id, or
 * `AwaitingTasks` with a pending result for each of its run tasks, in the same statement (issue 48).
 */
export async function insertRun(statement: Statement, run: RunToInsert): Promise<Run> {
  validateNewRun(run);
  const { rows } = await statement<RunRow>(
    `WITH inserted AS (
       INSERT INTO runs (id, project, workspace, type, phase, principal, principal_type, message, plan_run, planned_for, override)
       VALUES ($1, $2, $3, $4, CASE WHEN cardinality($10::text[]) > 0 THEN 'AwaitingTasks' ELSE 'Pending' END,
               $5, $6, $7, $8, $9, $14)
       RETURNING ${RUN_COLUMNS}
     ), results AS (
       ${insertPendingTaskResults('inserted', 10)}
     )
     SELECT * FROM inserted`,
    [
      newRunId(),
      run.project,
      run.workspace,
      run.type,
      run.principal,
      run.principalType,
      run.message ?? '',
      run.planRun ?? null,
      run.plannedFor === undefined ? null : JSON.stringify(run.plannedFor),
      ...pendingTaskResultValues(run.tasks),
      run.override === undefined ? null : JSON.stringify(run.override),
    ],
  );
  return toRun(rows[0]!);
}
