import { apiError } from '../../../base/http/error-catalogue.ts';
import type { PlanApprovalBlock, RunAnswer } from '../../../contract/rules/run-record.ts';
import type { Statement } from '../records/insert-run.ts';
import type { RunTaskEnforcement } from './run-task-protocol.ts';
import { TIMED_OUT_MESSAGE, type TaskResultStatus } from './run-task-results.ts';

/** Why a succeeded plan's post_plan run tasks hold back its approval for apply (issue 48, item 1). */
export interface PostPlanBlock extends PlanApprovalBlock {
  reason: 'RunTasksPending' | 'RunTaskFailed';
}

interface PostPlanRow {
  run_id: string;
  task: string;
  enforcement: RunTaskEnforcement;
  status: TaskResultStatus;
  message: string;
  overridden: boolean;
  /** Still waiting, past its deadline by the database's clock: errored, whether or not a settle has recorded it yet. */
  expired: boolean;
}

/**
 * The post_plan gate of succeeded plans (issue 48, item 1), by plan id: a mandatory result failed or errored (a
 * timeout), and not overridden, blocks as `RunTaskFailed`; otherwise any result not final yet (advisory ones too)
 * blocks as `RunTasksPending`. A plan with nothing blocking it is absent. `statement`: the pool, or the connection
 * of the transaction that approves, so the verdict is the one the approval acts on.
 */
export async function postPlanBlocks(
  statement: Statement,
  planRuns: readonly string[],
): Promise<Map<string, PostPlanBlock>> {
  const blocks = new Map<string, PostPlanBlock>();
  if (planRuns.length === 0) return blocks;
  const { rows } = await statement<PostPlanRow>(
    `SELECT run_id, task, enforcement, status, message, overridden_by IS NOT NULL AS overridden,
            status IN ('pending', 'running') AND deadline <= now() AS expired
     FROM run_task_results WHERE stage = 'post_plan' AND run_id = ANY($1::uuid[]) ORDER BY task`,
    [planRuns],
  );
  for (const plan of planRuns) {
    const block = blockOf(
      plan,
      rows.filter((row) => row.run_id === plan),
    );
    if (block) blocks.set(plan, block);
  }
  return blocks;
}

/** Refuses approving `planRun` for apply while its post_plan tasks block it: 409 `RunTaskFailed` or `RunTasksPending`. */
export async function refuseWhilePostPlanTasksBlock(statement: Statement, planRun: string): Promise<void> {
  const block = (await postPlanBlocks(statement, [planRun])).get(planRun);
  if (block) throw apiError(block.reason, block.message);
}

/** The answers with each succeeded plan's post_plan block in `planApproval.blockedBy` (null: none), not applyable then. */
export async function withPostPlanBlocks(statement: Statement, answers: RunAnswer[]): Promise<RunAnswer[]> {
  const blocks = await postPlanBlocks(
    statement,
    answers.filter((answer) => answer.planApproval !== null).map((answer) => answer.id),
  );
  return answers.map((answer) => {
    if (answer.planApproval === null) return answer;
    const block = blocks.get(answer.id);
    const blockedBy = block ? { reason: block.reason, message: block.message } : null;
    return {
      ...answer,
      planApproval: { ...answer.planApproval, applyable: answer.planApproval.applyable && !block, blockedBy },
    };
  });
}

function blockOf(plan: string, results: readonly PostPlanRow[]): PostPlanBlock | undefined {
  const statusOf = (row: PostPlanRow): TaskResultStatus => (row.expired ? 'errored' : row.status);
  const failed = results.find(
    (row) => row.enforcement === 'mandatory' && !row.overridden && ['failed', 'errored'].includes(statusOf(row)),
  );
  if (failed) {
    const message = failed.expired ? TIMED_OUT_MESSAGE : failed.message;
    return {
      reason: 'RunTaskFailed',
      message: `plan run ${plan} may not be applied: mandatory run task ${failed.task} ${statusOf(failed)} at post_plan${message === '' ? '' : `: ${message}`}; a caller with override may let it proceed (POST .../runs/${plan}/override-tasks), or plan again`,
    };
  }
  const waiting = results.filter((row) => ['pending', 'running'].includes(statusOf(row))).map((row) => row.task);
  if (waiting.length === 0) return undefined;
  return {
    reason: 'RunTasksPending',
    message: `plan run ${plan} may not be applied yet: run task${waiting.length === 1 ? '' : 's'} ${waiting.join(', ')} at post_plan ${waiting.length === 1 ? 'has' : 'have'} not answered; approve it once ${waiting.length === 1 ? 'it has' : 'they have'}`,
  };
}
