import type { PlanApprovalRecord } from '../../../contract/rules/run-record.ts';
import type { Statement } from './insert-run.ts';

// The approvals of plans for apply (issue 45, item 2; migration 017 `plan_approvals`): one row per plan run and
// approver, each written in the transaction that holds the plan's row lock (PlanApprovals).

interface ApprovalRow {
  plan_run: string;
  approved_by: string;
  approved_at: Date;
  groups: string[];
}

/**
 * Records `approver`'s approval of `planRun` with its groups; false when it has one already: the primary key
 * decides, on every instance.
 */
export async function recordPlanApproval(
  statement: Statement,
  planRun: string,
  approver: string,
  groups: readonly string[],
): Promise<boolean> {
  const { rowCount } = await statement(
    `INSERT INTO plan_approvals (plan_run, approved_by, groups) VALUES ($1, $2, $3::text[])
     ON CONFLICT (plan_run, approved_by) DO NOTHING`,
    [planRun, approver, [...groups]],
  );
  return rowCount === 1;
}

/** Deletes `approver`'s approval of `planRun`; false when there was none. */
export async function deletePlanApproval(statement: Statement, planRun: string, approver: string): Promise<boolean> {
  const { rowCount } = await statement('DELETE FROM plan_approvals WHERE plan_run = $1 AND approved_by = $2', [
    planRun,
    approver,
  ]);
  return rowCount === 1;
}

/** The approvals of each of `plans` (by the primary key's index), oldest first; a plan without any has no entry. */
export async function planApprovalRecords(
  statement: Statement,
  plans: readonly string[],
): Promise<Map<string, PlanApprovalRecord[]>> {
  const records = new Map<string, PlanApprovalRecord[]>();
  if (plans.length === 0) return records;
  const { rows } = await statement<ApprovalRow>(
    `SELECT plan_run, approved_by, approved_at, groups FROM plan_approvals
     WHERE plan_run = ANY($1::uuid[]) ORDER BY approved_at, approved_by`,
    [[...plans]],
  );
  for (const row of rows) {
    const list = records.get(row.plan_run) ?? [];
    list.push({ approvedBy: row.approved_by, approvedAt: row.approved_at.toISOString(), groups: row.groups });
    records.set(row.plan_run, list);
  }
  return records;
}
