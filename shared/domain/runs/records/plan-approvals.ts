import type { Database } from '../../../base/database/database.ts';
import type { RunAnswer } from '../../../contract/rules/run-record.ts';
import { planBindingChange, type PlanBinding } from '../../approvals/plan-binding.ts';
import { NotASucceededPlanError, PlanStaleError, PlanWorkspaceChangedError, RunNotFoundError } from '../run-errors.ts';
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
}

interface PlanRow {
  workspace: string;
  type: RunType;
  phase: RunPhase;
  finished_at: Date | null;
  /** The database's clock, which the plan's age is measured by. */
  now: Date;
  planned_for: PlanBinding | null;
}

export type { RunAnswer } from '../../../contract/rules/run-record.ts';

const isSucceededPlan = (run: Run) => run.type === 'plan' && run.phase === 'Succeeded';

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
   * The new apply run bound to the plan; `RunNotFoundError`, `NotASucceededPlanError` or `PlanStaleError`
   * otherwise, or 409 `RunTasksPending` / `RunTaskFailed` while its post_plan run tasks hold it back (issue 48).
   * `signal`: the request's deadline, as for a new run.
   */
  async approveForApply(approval: PlanApproval, signal?: AbortSignal): Promise<Run> {
    const { project, planRun } = approval;
    if (!isUuid(planRun)) throw new RunNotFoundError(planRun);
    return this.#database.transaction(
      async (query) => {
        // The plan's row lock serialises approvals of one plan: the second one, once the first has
        // committed, reads (in a statement of its own, so with a snapshot taken after the wait) the
        // apply the first one made, and is refused as superseded.
        const { rows } = await query<PlanRow>(
          `SELECT workspace, type, phase, finished_at, planned_for, now() AS now
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
        return insertRun(query, {
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
      },
      signal ? { signal } : {},
    );
  }

  /**
   * `runs` as the run history routes answer them (issue 44, item 15): each succeeded plan with its
   * `planApproval` verdict, by the rule approveForApply applies (one statement, by the database's
   * clock; its post_plan run tasks in `blockedBy`, issue 48), every other run with null. `maxAgeMs`:
   * PLAN_APPROVAL_MAX_AGE.
   */
  async withPlanApproval(runs: Run[], maxAgeMs: number, signal?: AbortSignal): Promise<RunAnswer[]> {
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
    return withPostPlanBlocks(
      (text, values) => this.#database.query(text, values, signal ? { signal } : {}),
      runs.map((run) => ({ ...run, planApproval: states.get(run.id) ?? null })),
    );
  }
}

function supersedingRun(row: { id: string | null; type: RunType | null } | undefined): SupersedingRun | null {
  return row?.id && row.type ? { id: row.id, type: row.type } : null;
}
