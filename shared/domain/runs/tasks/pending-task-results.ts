import type { TasksToAwait } from './run-task-protocol.ts';

/**
 * SQL: inserts a `pending` result for each run task of `tasks` (pendingTaskResultValues, from parameter `$first`) for
 * the run row of the statement's CTE `run`, its deadline RUN_TASK_TIMEOUT from now. Used by the statement that
 * reaches the stage (a run recorded at pre_plan or pre_apply, a plan reported Succeeded at post_plan: issue 48), so
 * a run is never at a stage without the results it waits for.
 */
export function insertPendingTaskResults(run: string, first: number): string {
  const [names, enforcements, stage, timeoutMs] = [first, first + 1, first + 2, first + 3];
  return `INSERT INTO run_task_results (id, run_id, task, stage, enforcement, deadline)
       SELECT gen_random_uuid(), ${run}.id, task.name, $${stage}, task.enforcement,
              now() + $${timeoutMs}::float8 * interval '1 millisecond'
       FROM ${run}, unnest($${names}::text[], $${enforcements}::text[]) AS task (name, enforcement)`;
}

/** The four values insertPendingTaskResults reads: the tasks' names, their enforcements, the stage, the timeout. */
export function pendingTaskResultValues(tasks: TasksToAwait | undefined): unknown[] {
  const list = tasks?.tasks ?? [];
  return [
    list.map((task) => task.name),
    list.map((task) => task.enforcement),
    tasks?.stage ?? null,
    tasks?.timeoutMs ?? 0,
  ];
}
