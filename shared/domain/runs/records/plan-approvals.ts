import type { Database } from '../../../base/database/database.ts';
import type { PlanApprovalRecord, RunAnswer } from '../../../contract/rules/run-record.ts';
import {
  approvalsMet,
  type ApprovalRequirement,
  type ApprovalsStillNeeded,
} from '../../../contract/rules/rollout-stage.ts';
import { ONE_APPROVAL, planStillNeeds } from '../../approvals/apply-approval-judge.ts';
import { planBindingChange, type PlanBinding } from '../../approvals/plan-binding.ts';
import {
  ApplyAlreadyStartedError,
  NotASucceededPlanError,
  PlanAlreadyApprovedError,
  PlanApprovalNotFoundError,
  PlanStaleError,
  PlanWorkspaceChangedError,
  RunNotFoundError,
} from '../run-errors.ts';
import type { Statement } from './insert-run.ts';
import { deletePlanApproval, planApprovalRecords, recordPlanApproval } from './plan-approval-records.ts';
import { isUuid } from './run-id.ts';
import type { PrincipalType, Run, RunOverride, RunPhase, RunType } from '../run.ts';
import { insertRun } from './insert-run.ts';
import type { TasksToAwait } from '../tasks/run-task-protocol.ts';
import { refuseWhilePostPlanTasksBlock, withPostPlanBlocks } from '../tasks/post-plan-gate.ts';
import {
  type PlanApprovalState,
  SUPERSEDING_RUN_JOIN,
  type SupersedingRun,
  planApprovalState,
  planStaleReason,
} from './plan-staleness.ts';

/** An approval of plan run `planRun` of `project` for apply, by `principal`. */
export interface PlanApproval {
  project: string;
  planRun: string;
  principal: string;
  principalType: PrincipalType;
  message?: string;
  /** How long after it finished the plan may still be approved (PLAN_APPROVAL_MAX_AGE), in milliseconds. */
  maxAgeMs: number;
  /** The plan's Workspace as it is now: the plan must have been planned for exactly this (issue 45). */
  workspace: PlanBinding;
  /** The override of the Project's windows or freeze that lets the apply through, recorded on it (issue 45). */
  override?: RunOverride;
  /** The run tasks the apply run waits for before a controller may claim it (issue 48). */
  tasks?: TasksToAwait;
  /** The approver's groups, recorded with its approval (issue 45, item 2); none when not given. */
  groups?: readonly string[];
  /** What the Project's policy asks of the Workspace's applies (applyRequirement); one approval when not given. */
  requirement?: ApprovalRequirement;
}

/**
 * What an approval did (issue 45, item 2): recorded, and the apply run it started when it met the policy (null
 * while the policy still needs `stillNeeded`).
 */
export interface PlanApprovalOutcome {
  apply: Run | null;
  stillNeeded: ApprovalsStillNeeded;
}

/** A withdrawal of `approver`'s approval of plan run `planRun` of `project` (issue 45, item 2). */
export interface PlanWithdrawal {
  project: string;
  planRun: string;
  approver: string;
}

interface PlanRow {
  workspace: string;
  principal: string;
  type: RunType;
  phase: RunPhase;
  finished_at: Date | null;
  /** The database's clock, which the plan's age is measured by. */
  now: Date;
  planned_for: PlanBinding | null;
}

export type { RunAnswer } from '../../../contract/rules/run-record.ts';

/** Whether `run` is a plan its run answer says may be approved for apply (the others have no `planApproval`). */
export const isSucceededPlan = (run: Run) => run.type === 'plan' && run.phase === 'Succeeded';

/**
 * Applying what was reviewed (issue 37): approving a succeeded plan run records a `Pending` apply run
 * bound to it (`plan_run`), which the controller is handed on claim. Refused when the plan is stale: a
 * newer run (plan or apply) of its Workspace exists, or it finished longer ago than the limit, so a plan
 * is applied at most once and never after the Workspace moved on; nor when the Workspace is no longer the object
 * and spec it was planned for (`planned_for`: issue 45, shared/domain/approvals/plan-binding.ts).
 */
export class PlanApprovals {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /**
   * Records the approval and, once the plan's approvals meet the policy, the new apply run bound to the plan;
   * `RunNotFoundError`, `NotASucceededPlanError`, `PlanWorkspaceChangedError`, `PlanStaleError`, 409
   * `RunTasksPending` / `RunTaskFailed` while its post_plan run tasks hold it back (issue 48; nothing recorded)
   * or `PlanAlreadyApprovedError` otherwise. `signal`: the request's deadline, as for a new run.
   */
  async approveForApply(approval: PlanApproval, signal?: AbortSignal): Promise<PlanApprovalOutcome> {
    const { project, planRun } = approval;
    if (!isUuid(planRun)) throw new RunNotFoundError(planRun);
    return this.#database.transaction(
      async (query) => {
        // The plan's row lock serialises approvals of one plan: the second one, once the first has
        // committed, reads (in a statement of its own, so with a snapshot taken after the wait) the
        // apply the first one made, and is refused as superseded; or, where the policy needs more
        // approvers, the first one's record, which it counts with its own (issue 45, item 2).
        const { rows } = await query<PlanRow>(
          `SELECT workspace, principal, type, phase, finished_at, planned_for, now() AS now
         FROM runs WHERE id = $1 AND project = $2 FOR UPDATE`,
          [planRun, project],
        );
        const plan = rows[0];
        if (!plan) throw new RunNotFoundError(planRun);
        if (plan.type !== 'plan' || plan.phase !== 'Succeeded')
          throw new NotASucceededPlanError(planRun, plan.type, plan.phase);
        const { rows: newer } = await query<{ id: string | null; type: RunType | null }>(
          `SELECT superseding.id, superseding.type FROM runs plan ${SUPERSEDING_RUN_JOIN} WHERE plan.id = $1`,
          [planRun],
        );
        const change = planBindingChange(plan.planned_for, approval.workspace);
        if (change !== undefined) throw new PlanWorkspaceChangedError(planRun, change);
        const finished = { workspace: plan.workspace, finishedAt: plan.finished_at! };
        const state = planApprovalState(
          { ...finished, supersededBy: supersedingRun(newer[0]) },
          approval.maxAgeMs,
          plan.now,
        );
        const stale = planStaleReason(state, finished);
        if (stale) throw new PlanStaleError(planRun, stale);
        // Issue 48, item 1: the plan's post_plan run tasks must have answered, none mandatory failing.
        await refuseWhilePostPlanTasksBlock(query, planRun);
        const stillNeeded = await recordedApproval(query, { id: planRun, principal: plan.principal }, approval);
        if (!approvalsMet(stillNeeded)) return { apply: null, stillNeeded };
        const apply = await insertRun(query, {
          project,
          workspace: plan.workspace,
          type: 'apply',
          principal: approval.principal,
          principalType: approval.principalType,
          message: approval.message ?? '',
          planRun,
          ...(approval.override ? { override: approval.override } : {}),
          ...(approval.tasks ? { tasks: approval.tasks } : {}),
        });
        return { apply, stillNeeded };
      },
      signal ? { signal } : {},
    );
  }

  /**
   * Withdraws an approval of a plan for apply (issue 45, item 2), under the plan's row lock as approvals are
   * given: `RunNotFoundError`; `ApplyAlreadyStartedError` once the approvals started its apply run;
   * `PlanApprovalNotFoundError` when the approver has no approval of it.
   */
  async withdrawApproval({ project, planRun, approver }: PlanWithdrawal, signal?: AbortSignal): Promise<void> {
    if (!isUuid(planRun)) throw new RunNotFoundError(planRun);
    await this.#database.transaction(
      async (query) => {
        const { rows } = await query('SELECT id FROM runs WHERE id = $1 AND project = $2 FOR UPDATE', [
          planRun,
          project,
        ]);
        if (!rows[0]) throw new RunNotFoundError(planRun);
        // The apply run of this plan is among its Workspace's later runs (one index range scan, as staleness).
        const { rows: applies } = await query<{ id: string }>(
          `SELECT newer.id FROM runs plan JOIN runs newer
             ON newer.project = plan.project AND newer.workspace = plan.workspace
            AND (newer.created_at, newer.id) > (plan.created_at, plan.id)
           WHERE plan.id = $1 AND newer.plan_run = plan.id LIMIT 1`,
          [planRun],
        );
        if (applies[0]) throw new ApplyAlreadyStartedError(planRun, applies[0].id);
        if (!(await deletePlanApproval(query, planRun, approver)))
          throw new PlanApprovalNotFoundError(planRun, approver);
      },
      signal ? { signal } : {},
    );
  }

  /**
   * `runs` as the run history routes answer them (issue 44, item 15): each succeeded plan with its
   * `planApproval` verdict, by the rule approveForApply applies (one statement, by the database's
   * clock; its post_plan run tasks in `blockedBy`, issue 48), and its approvals so far with who still has to
   * approve (issue 45, item 2: `requirementOf` its Workspace, applyRequirement), every other run with null.
   * `maxAgeMs`: PLAN_APPROVAL_MAX_AGE.
   */
  async withPlanApproval(
    runs: Run[],
    maxAgeMs: number,
    requirementOf: (workspace: string) => ApprovalRequirement,
    signal?: AbortSignal,
  ): Promise<RunAnswer[]> {
    const plans = runs.filter(isSucceededPlan).map((run) => run.id);
    const states = new Map<string, PlanApprovalState>();
    if (plans.length > 0) {
      const { rows } = await this.#database.query<{
        id: string;
        finished_at: Date;
        superseding_id: string | null;
        superseding_type: RunType | null;
        now: Date;
      }>(
        `SELECT plan.id, plan.finished_at, superseding.id AS superseding_id, superseding.type AS superseding_type,
                now() AS now
         FROM runs plan ${SUPERSEDING_RUN_JOIN} WHERE plan.id = ANY($1::uuid[])`,
        [plans],
        signal ? { signal } : {},
      );
      for (const row of rows)
        states.set(
          row.id,
          planApprovalState(
            {
              finishedAt: row.finished_at,
              supersededBy: supersedingRun({ id: row.superseding_id, type: row.superseding_type }),
            },
            maxAgeMs,
            row.now,
          ),
        );
    }
    const statement = this.#statement(signal);
    const approvals = await planApprovalRecords(statement, plans);
    return withPostPlanBlocks(
      statement,
      runs.map((run) => {
        const state = states.get(run.id);
        return { ...run, planApproval: state ? { ...state, ...approvalsOf(run, approvals, requirementOf) } : null };
      }),
    );
  }

  /** One statement on the pool, with the request's deadline. */
  #statement(signal: AbortSignal | undefined): Statement {
    return (text, values) => this.#database.query(text, values, signal ? { signal } : {});
  }
}

function supersedingRun(row: { id: string | null; type: RunType | null } | undefined): SupersedingRun | null {
  return row?.id && row.type ? { id: row.id, type: row.type } : null;
}

/**
 * Records `approval` of `plan` (issue 45, item 2), in the transaction holding the plan's row lock, and says who
 * still has to approve, from every approval of it so far: `PlanAlreadyApprovedError` when its approver has one.
 */
async function recordedApproval(
  query: Statement,
  plan: { id: string; principal: string },
  approval: PlanApproval,
): Promise<ApprovalsStillNeeded> {
  const recorded = await recordPlanApproval(query, plan.id, approval.principal, approval.groups ?? []);
  const records = await planApprovalRecords(query, [plan.id]);
  const stillNeeded = planStillNeeds(approval.requirement ?? ONE_APPROVAL, records.get(plan.id) ?? [], plan);
  // An approver's repeat counts nothing new, but where the approvals given already meet the policy (it was lowered
  // since they were given) it starts the apply they now allow rather than leave the plan waiting for a stranger.
  if (!recorded && !approvalsMet(stillNeeded)) throw new PlanAlreadyApprovedError(plan.id, approval.principal);
  return stillNeeded;
}

/** A succeeded plan's approvals as its run answer states them: so far, what the policy asks, and who still has to. */
function approvalsOf(
  plan: Run,
  approvals: ReadonlyMap<string, PlanApprovalRecord[]>,
  requirementOf: (workspace: string) => ApprovalRequirement,
): Required<Pick<PlanApprovalState, 'approvals' | 'requirement' | 'stillNeeded'>> {
  const given = approvals.get(plan.id) ?? [];
  const requirement = requirementOf(plan.workspace);
  return { approvals: given, requirement, stillNeeded: planStillNeeds(requirement, given, plan) };
}
