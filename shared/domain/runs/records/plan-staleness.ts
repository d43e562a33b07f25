import type { PlanApprovalState, SupersedingRun } from '../../../contract/rules/run-record.ts';

/**
 * The staleness rule of a succeeded plan (issue 37), in one place: approving it for apply
 * (PlanApprovals.approveForApply) refuses a stale plan, and the run answer states the same verdict
 * (issue 44, item 15) so that a client (the console, the plugin) offers "Apply this plan" only while
 * the server would accept it, without a copy of the rule.
 */

export type { PlanApprovalState, SupersedingRun } from '../../../contract/rules/run-record.ts';

/**
 * SQL: the run superseding the plan row aliased `plan`, as columns `superseding.id` and
 * `superseding.type` (both null while the plan is its Workspace's newest run).
 */
export const SUPERSEDING_RUN_JOIN = `LEFT JOIN LATERAL (
    SELECT newer.id, newer.type FROM runs newer
    WHERE newer.project = plan.project AND newer.workspace = plan.workspace
      AND (newer.created_at, newer.id) > (plan.created_at, plan.id)
    ORDER BY newer.created_at DESC, newer.id DESC LIMIT 1
  ) superseding ON true`;

/** The verdict on a succeeded plan that finished at `finishedAt`, at `now` (the database's clock). */
export function planApprovalState(
  plan: { finishedAt: Date; supersededBy: SupersedingRun | null },
  maxAgeMs: number,
  now: Date,
): PlanApprovalState {
  const until = new Date(plan.finishedAt.getTime() + maxAgeMs);
  return {
    applyable: plan.supersededBy === null && now.getTime() <= until.getTime(),
    applyableUntil: until.toISOString(),
    supersededBy: plan.supersededBy,
  };
}

/** Why a plan of `workspace` in `state` may not be applied (the `PlanStale` detail); undefined when it may. */
export function planStaleReason(
  state: PlanApprovalState,
  plan: { workspace: string; finishedAt: Date },
): string | undefined {
  if (state.supersededBy)
    return `a newer ${state.supersededBy.type} run (${state.supersededBy.id}) of workspace "${plan.workspace}" exists`;
  if (!state.applyable)
    return `it finished at ${plan.finishedAt.toISOString()}, longer ago than PLAN_APPROVAL_MAX_AGE allows`;
  return undefined;
}
