import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../../base/database/database.ts';
import { NO_METRICS, type Metrics } from '../../../base/metrics/metrics.ts';
import { apiError } from '../../../base/http/error-catalogue.ts';
import { isUuid } from '../records/run-id.ts';
import { RUN_COLUMNS, toRun, type RunRow } from '../records/run-row.ts';
import type { Run } from '../run.ts';
import type {
  RunTaskEnforcement,
  RunTaskStage,
  TaskOutcome,
  TaskResult,
  TaskResultStatus,
} from '../../../contract/rules/run-task-result.ts';
import type { TaskCallback } from './run-task-protocol.ts';

export type { TaskResult, TaskResultStatus } from '../../../contract/rules/run-task-result.ts';

/** The task result an access token was issued for, as the callback routes act on it. */
export interface TokenHolder {
  taskResult: string;
  run: string;
  project: string;
  workspace: string;
  task: string;
  /** ms since the epoch: the token is refused after it. */
  expiresAt: number;
}

interface ResultRow {
  id: string;
  run_id: string;
  task: string;
  stage: RunTaskStage;
  enforcement: RunTaskEnforcement;
  status: TaskResultStatus;
  message: string;
  url: string | null;
  outcomes: TaskOutcome[];
  deadline: Date;
  created_at: Date;
  updated_at: Date;
  overridden_by: string | null;
  override_reason: string | null;
  overridden_at: Date | null;
}

const RESULT_COLUMNS =
  'id, run_id, task, stage, enforcement, status, message, url, outcomes, deadline, created_at, updated_at, overridden_by, override_reason, overridden_at';
const FINAL = `('passed', 'failed', 'errored')`;
/** The message of a result the task did not answer before its deadline (`errored`). */
export const TIMED_OUT_MESSAGE = 'no answer before the deadline (RUN_TASK_TIMEOUT)';
/** An access token: a prefix that says what it is (and that no JWT has), then 32 random bytes. */
const TOKEN_PREFIX = 'rtt_';

const sha256 = (token: string) => createHash('sha256').update(token).digest();

/**
 * The results of a run's tasks (issue 48, docs/run-tasks.md) and the gate they keep: a run in `AwaitingTasks`
 * moves on (`Pending`, or `Failed` naming a mandatory task) once every result is final, in one statement whose
 * `WHERE` re-checks the phase, so instances settling at once move it once. Each result's access token is
 * issued per request, kept as its SHA-256, bound to that result alone and refused after the deadline.
 */
export class RunTaskResults {
  readonly #database: Database;
  readonly #metrics: Pick<Metrics, 'runTaskResult' | 'runTaskGate'>;

  constructor(database: Database, metrics: Pick<Metrics, 'runTaskResult' | 'runTaskGate'> = NO_METRICS) {
    this.#database = database;
    this.#metrics = metrics;
  }

  /** The results of run `runId`, by task name. */
  async resultsOf(runId: string, signal?: AbortSignal): Promise<TaskResult[]> {
    const { rows } = await this.#database.query<ResultRow>(
      `SELECT ${RESULT_COLUMNS} FROM run_task_results WHERE run_id = $1 ORDER BY stage, task`,
      [runId],
      signal ? { signal } : {},
    );
    return rows.map(toResult);
  }

  /**
   * The result of `task` for run `runId` while it waits for the task, with its run: what a request is built from. A
   * pre-stage result waits while its run is `AwaitingTasks`, a post_plan one while its plan is `Succeeded` (at most
   * one result of a task waits at a time: a run leaves its pre-stage only once every result there is final).
   */
  async waiting(runId: string, task: string): Promise<{ result: TaskResult; run: Run } | undefined> {
    if (!isUuid(runId)) return undefined;
    const { rows } = await this.#database.query<ResultRow & { run: RunRow }>(
      `SELECT ${RESULT_COLUMNS.split(', ')
        .map((column) => `t.${column}`)
        .join(', ')}, to_jsonb(r) AS run
       FROM run_task_results t JOIN (SELECT ${RUN_COLUMNS} FROM runs) r ON r.id = t.run_id
       WHERE t.run_id = $1 AND t.task = $2 AND t.status IN ('pending', 'running') AND t.deadline > now()
         AND r.phase = CASE WHEN t.stage = 'post_plan' THEN 'Succeeded' ELSE 'AwaitingTasks' END`,
      [runId, task],
    );
    const row = rows[0];
    if (!row) return undefined;
    return { result: toResult(row), run: toRun(revived(row.run)) };
  }

  /**
   * A new access token for `taskResult` (the one of its latest request): the earlier one stops working.
   * Undefined when the result no longer waits.
   */
  async issueToken(taskResult: string): Promise<{ token: string; expiresAt: string } | undefined> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const { rows } = await this.#database.query<{ deadline: Date }>(
      `UPDATE run_task_results SET token_sha256 = $2
       WHERE id = $1 AND status IN ('pending', 'running') AND deadline > now() RETURNING deadline`,
      [taskResult, sha256(token)],
    );
    return rows[0] ? { token, expiresAt: rows[0].deadline.toISOString() } : undefined;
  }

  /** Whom `token` was issued for, while it is current and its result's deadline has not passed; else undefined. */
  async holderOf(token: string): Promise<TokenHolder | undefined> {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const { rows } = await this.#database.query<{
      id: string;
      run_id: string;
      project: string;
      workspace: string;
      task: string;
      deadline: Date;
    }>(
      `SELECT t.id, t.run_id, r.project, r.workspace, t.task, t.deadline
       FROM run_task_results t JOIN runs r ON r.id = t.run_id
       WHERE t.token_sha256 = $1 AND t.deadline > now()`,
      [sha256(token)],
    );
    const row = rows[0];
    return (
      row && {
        taskResult: row.id,
        run: row.run_id,
        project: row.project,
        workspace: row.workspace,
        task: row.task,
        expiresAt: row.deadline.getTime(),
      }
    );
  }

  /**
   * Records a task's callback on its result (`running` may come any number of times before the final one),
   * then settles the run's gate. 409 `TaskResultFinal` once the result is final.
   */
  async report(taskResult: string, callback: TaskCallback, signal?: AbortSignal): Promise<TaskResult> {
    const { rows } = await this.#database.query<ResultRow>(
      `UPDATE run_task_results SET status = $2, message = $3, url = $4, outcomes = $5::jsonb,
         updated_at = date_trunc('milliseconds', now())
       WHERE id = $1 AND status IN ('pending', 'running')
       RETURNING ${RESULT_COLUMNS}`,
      [taskResult, callback.status, callback.message, callback.url ?? null, JSON.stringify(callback.outcomes)],
      signal ? { signal } : {},
    );
    if (!rows[0]) throw apiError('TaskResultFinal', `task result ${taskResult} is final: it does not change`);
    if (callback.status !== 'running') this.#metrics.runTaskResult(callback.status, rows[0].enforcement);
    await this.settle([rows[0].run_id]);
    return toResult(rows[0]);
  }

  /**
   * Moves every run in `AwaitingTasks` whose results are all final (of `runIds`, or all): results past their
   * deadline become `errored` first. A mandatory result that is not `passed` (and not overridden) fails the run,
   * naming the task; otherwise it becomes `Pending`, for a controller to claim. Resolves to the runs moved.
   */
  async settle(runIds?: readonly string[]): Promise<{ id: string; phase: string }[]> {
    const scope = runIds ? 'AND run_id = ANY($1::uuid[])' : '';
    const values = runIds ? [runIds] : [];
    const { rows: timedOut } = await this.#database.query<{ enforcement: RunTaskEnforcement }>(
      `UPDATE run_task_results SET status = 'errored', token_sha256 = NULL,
         updated_at = date_trunc('milliseconds', now()),
         message = '${TIMED_OUT_MESSAGE}'
       WHERE status IN ('pending', 'running') AND deadline <= now() ${scope}
       RETURNING enforcement`,
      values,
    );
    for (const { enforcement } of timedOut) this.#metrics.runTaskResult('errored', enforcement);
    const { rows } = await this.#database.query<{ id: string; phase: string }>(
      `UPDATE runs r SET
         phase = CASE WHEN gate.blocking IS NULL THEN 'Pending' ELSE 'Failed' END,
         finished_at = CASE WHEN gate.blocking IS NULL THEN NULL ELSE date_trunc('milliseconds', now()) END,
         status_message = coalesce(gate.blocking, gate.summary)
       FROM (
         SELECT run_id,
           (array_agg(format('mandatory run task %s %s at %s%s', task, status, stage,
                        CASE WHEN message = '' THEN '' ELSE ': ' || message END) ORDER BY task)
              FILTER (WHERE enforcement = 'mandatory' AND status <> 'passed' AND overridden_by IS NULL))[1] AS blocking,
           'run tasks: ' || string_agg(format('%s %s (%s)', task, status, enforcement), ', ' ORDER BY task) AS summary
         FROM run_task_results
         WHERE run_id IN (SELECT id FROM runs WHERE phase = 'AwaitingTasks') ${scope}
         GROUP BY run_id
         HAVING bool_and(status IN ${FINAL})
       ) gate
       WHERE r.id = gate.run_id AND r.phase = 'AwaitingTasks'
       RETURNING r.id, r.phase`,
      values,
    );
    for (const { phase } of rows) this.#metrics.runTaskGate(phase === 'Pending' ? 'proceeded' : 'failed');
    return rows;
  }

  /**
   * Lets run `runId` of `project` proceed although a mandatory task failed (issue 48, item 3): a run that failed at
   * its tasks before any claim (its failing mandatory results record who and why, and the run is `Pending` again,
   * in one statement), or a succeeded plan whose mandatory post_plan task failed or timed out (its results record
   * who and why; the plan stays Succeeded, and may be approved for apply). 409 `NothingToOverride` for any other run.
   */
  async override(
    project: string,
    runId: string,
    principal: string,
    reason: string,
    signal?: AbortSignal,
  ): Promise<Run> {
    const run =
      (await this.#overridePreStage(project, runId, principal, reason, signal)) ??
      (await this.#overridePostPlan(project, runId, principal, reason, signal));
    if (!run)
      throw apiError(
        'NothingToOverride',
        `run ${runId} did not fail on a mandatory run task (before a claim, or after its plan), or was overridden already: nothing to override`,
      );
    this.#metrics.runTaskGate('overridden');
    return run;
  }

  async #overridePreStage(
    project: string,
    runId: string,
    principal: string,
    reason: string,
    signal?: AbortSignal,
  ): Promise<Run | undefined> {
    const { rows } = await this.#database.query<RunRow>(
      `WITH overridden AS (
         UPDATE run_task_results SET overridden_by = $3, override_reason = $4,
           overridden_at = date_trunc('milliseconds', now())
         WHERE run_id = $1 AND enforcement = 'mandatory' AND status <> 'passed' AND overridden_by IS NULL
           AND EXISTS (SELECT 1 FROM runs WHERE id = $1 AND project = $2 AND phase = 'Failed' AND attempts = 0)
         RETURNING task
       )
       UPDATE runs SET phase = 'Pending', finished_at = NULL,
         status_message = format('run tasks overridden by %s (%s): %s', $3::text,
                                 (SELECT string_agg(task, ', ' ORDER BY task) FROM overridden), $4::text)
       WHERE id = $1 AND project = $2 AND phase = 'Failed' AND attempts = 0 AND EXISTS (SELECT 1 FROM overridden)
       RETURNING ${RUN_COLUMNS}`,
      [runId, project, principal, reason],
      signal ? { signal } : {},
    );
    return rows[0] && toRun(rows[0]);
  }

  /** A succeeded plan's failed or timed-out mandatory post_plan results record who let it proceed, and why. */
  async #overridePostPlan(
    project: string,
    runId: string,
    principal: string,
    reason: string,
    signal?: AbortSignal,
  ): Promise<Run | undefined> {
    // A result past its deadline is errored first, so a task that never answered can be overridden as a failure.
    await this.settle([runId]);
    const { rows } = await this.#database.query<RunRow>(
      `WITH overridden AS (
         UPDATE run_task_results SET overridden_by = $3, override_reason = $4,
           overridden_at = date_trunc('milliseconds', now())
         WHERE run_id = $1 AND stage = 'post_plan' AND enforcement = 'mandatory' AND status IN ('failed', 'errored')
           AND overridden_by IS NULL
           AND EXISTS (SELECT 1 FROM runs WHERE id = $1 AND project = $2 AND type = 'plan' AND phase = 'Succeeded')
         RETURNING task
       )
       SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND project = $2 AND EXISTS (SELECT 1 FROM overridden)`,
      [runId, project, principal, reason],
      signal ? { signal } : {},
    );
    return rows[0] && toRun(rows[0]);
  }
}

/** Whether a run may go on past these results: no mandatory one stands failed, errored or unanswered (nor overridden). */
export function mayProceed(results: readonly TaskResult[]): boolean {
  return results.every(
    (result) => result.enforcement === 'advisory' || result.status === 'passed' || result.overriddenBy !== null,
  );
}

function toResult(row: ResultRow): TaskResult {
  return {
    id: row.id,
    runId: row.run_id,
    task: row.task,
    stage: row.stage,
    enforcement: row.enforcement,
    status: row.status,
    message: row.message,
    url: row.url,
    outcomes: row.outcomes,
    deadline: row.deadline.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    overriddenBy: row.overridden_by,
    overrideReason: row.override_reason,
    overriddenAt: row.overridden_at?.toISOString() ?? null,
  };
}

/** A run row read back from `to_jsonb`: its timestamps are strings there. */
function revived(row: RunRow): RunRow {
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...row,
    created_at: new Date(row.created_at),
    started_at: date(row.started_at),
    finished_at: date(row.finished_at),
    log_removed_at: date(row.log_removed_at),
    cancel_requested_at: date(row.cancel_requested_at),
  };
}
