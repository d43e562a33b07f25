// Issue 45, item 2: the cost per row of plan approvals (migration 017's `plan_approvals`), from PostgreSQL's own
// sizes (table, its primary key's index and TOAST) after 10,000 approvals made as the server makes them: each plan
// recorded and finished, then approved by two approvers through PlanApprovals.approveForApply (under the plan's
// row lock, the approver's two OIDC groups recorded with it) where the policy asks more, so no apply starts.
// docs/run-history.md carries the number beside the other tables' costs.
import type pg from 'pg';
import { poolDatabase } from '../../shared/base/database/database.ts';
import { insertRun } from '../../shared/domain/runs/records/insert-run.ts';
import { PlanApprovals } from '../../shared/domain/runs/records/plan-approvals.ts';
import type { PlanBinding } from '../../shared/domain/approvals/plan-binding.ts';
import { startTestDatabase } from '../support/test-database.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const APPROVALS = 10_000;
const APPROVERS_PER_PLAN = 2;
const PLANNED_FOR: PlanBinding = { workspace: { uid: 'w-1', generation: 1 }, variableSets: [] };
const GROUPS = ['oidc:platform-eng', 'oidc:sre'];

/** PostgreSQL's size of `plan_approvals` with its index and TOAST, divided by its rows. */
async function bytesPerApproval(pool: pg.Pool): Promise<number> {
  await pool.query('VACUUM ANALYZE plan_approvals');
  const { rows } = await pool.query<{ bytes: string; count: string }>(
    `SELECT pg_total_relation_size('plan_approvals') AS bytes, (SELECT count(*) FROM plan_approvals) AS count`,
  );
  return Number(rows[0]!.bytes) / Number(rows[0]!.count);
}

export const planApprovalsBenchmark: Benchmark = async () => {
  const database = await startTestDatabase();
  try {
    const pool = database.pool;
    const approvals = new PlanApprovals(poolDatabase(pool));
    const statement = (text: string, values: unknown[]) => pool.query(text, values);
    for (let plan = 0; plan < APPROVALS / APPROVERS_PER_PLAN; plan++) {
      const recorded = await insertRun(statement, {
        project: 'bench',
        workspace: `workspace-${plan % 50}`,
        type: 'plan',
        principal: `oidc:author-${plan % 500}@example.com`,
        principalType: 'oidc',
        message: `plan ${plan}`,
        plannedFor: PLANNED_FOR,
      });
      await pool.query("UPDATE runs SET phase = 'Succeeded', started_at = now(), finished_at = now() WHERE id = $1", [
        recorded.id,
      ]);
      for (let approver = 0; approver < APPROVERS_PER_PLAN; approver++)
        await approvals.approveForApply({
          project: 'bench',
          planRun: recorded.id,
          principal: `oidc:approver-${(plan + approver) % 200}@example.com`,
          principalType: 'oidc',
          maxAgeMs: 86_400_000,
          workspace: PLANNED_FOR,
          groups: GROUPS,
          requirement: { count: 10, groups: [], distinctFromAuthor: false },
        });
    }
    const rows: BenchRow[] = [
      {
        name: `plan_approvals: bytes per row, table, index and TOAST (${APPROVALS} approvals, two OIDC groups each)`,
        value: await bytesPerApproval(pool),
        unit: 'B',
      },
    ];
    return rows;
  } finally {
    await database.destroy();
  }
};
