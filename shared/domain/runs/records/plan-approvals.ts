import type { Database } from '../../../base/database/database.ts';
import { NotASucceededPlanError, PlanStaleError, RunNotFoundError } from '../run-errors.ts';
import { isUuid } from './run-id.ts';
import type { PrincipalType, Run, RunPhase, RunType } from '../run.ts';
import { insertRun } from './insert-run.ts';

/** An approval of plan run `planRun` of `project` for apply, by `principal`. */
export interface PlanApproval {
  project: string;
  planRun: string;
  principal: string;
  principalType: PrincipalType;
  message?: string;
  /** How long after it finished the plan may still be approved (PLAN_APPROVAL_MAX_AGE), in milliseconds. */
  maxAgeMs: number;
}

interface PlanRow {
  workspace: string;
  type: RunType;
  phase: RunPhase;
  finished_at: Date | null;
  expired: boolean;
}

/**
 * Applying what was reviewed (issue 37): approving a succeeded plan run records a `Pending` apply run
 * bound to it (`plan_run`), which the controller is handed on claim. Refused when the plan is stale: a
 * newer run (plan or apply) of its Workspace exists, or it finished longer ago than the limit, so a plan
 * is applied at most once and never after the Workspace moved on.
 */
export class PlanApprovals {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /**
   * The new apply run bound to the plan; `RunNotFoundError`, `NotASucceededPlanError` or `PlanStaleError`
   * otherwise. `signal`: the request's deadline, as for a new run.
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
          `SELECT workspace, type, phase, finished_at,
                finished_at < now() - $3::float8 * interval '1 millisecond' AS expired
         FROM runs WHERE id = $1 AND project = $2 FOR UPDATE`,
          [planRun, project, approval.maxAgeMs],
        );
        const plan = rows[0];
        if (!plan) throw new RunNotFoundError(planRun);
        if (plan.type !== 'plan' || plan.phase !== 'Succeeded')
          throw new NotASucceededPlanError(planRun, plan.type, plan.phase);
        const { rows: newer } = await query<{ id: string; type: RunType }>(
          `SELECT newer.id, newer.type FROM runs newer, runs plan
         WHERE plan.id = $1 AND newer.project = plan.project AND newer.workspace = plan.workspace
           AND (newer.created_at, newer.id) > (plan.created_at, plan.id)
         ORDER BY newer.created_at DESC, newer.id DESC LIMIT 1`,
          [planRun],
        );
        if (newer[0])
          throw new PlanStaleError(
            planRun,
            `a newer ${newer[0].type} run (${newer[0].id}) of workspace "${plan.workspace}" exists`,
          );
        if (plan.expired)
          throw new PlanStaleError(
            planRun,
            `it finished at ${plan.finished_at!.toISOString()}, longer ago than PLAN_APPROVAL_MAX_AGE allows`,
          );
        return insertRun(query, {
          project,
          workspace: plan.workspace,
          type: 'apply',
          principal: approval.principal,
          principalType: approval.principalType,
          message: approval.message ?? '',
          planRun,
        });
      },
      signal ? { signal } : {},
    );
  }
}
