// Issue 45, items 2 and 5, for applies: a succeeded plan's approvals so far (who, when, with which groups), who
// still has to approve, what else holds it back (issue 48, `blockedBy`), and Withdraw for each approval where the
// user's rules allow `approve` on the Workspace's runs (the right the withdraw route asks, as the approval does).
// All from the run answer's `planApproval`: the console counts nothing itself.
import { planStillNeeds } from '../../../../../shared/contract/rules/plan-approval-progress.ts';
import type { PlanApprovalRecord } from '../../../../../shared/contract/rules/run-record.ts';
import type { Api } from '../api.ts';
import { type Run, runsPath } from '../platform-api.ts';
import { useStalePlanReason } from '../stale-plan.ts';
import { ConfirmAction } from './confirm-action.tsx';
import { DataTable, TimeCell } from './common.tsx';

export function PlanApprovals({
  api,
  run,
  mayWithdraw,
  onWithdrawn,
}: {
  api: Api;
  run: Run;
  /** Whether the user's rules allow `approve` on `workspaces/runs` of the run's Workspace. */
  mayWithdraw: boolean;
  /** Told what was withdrawn, once the server has it. */
  onWithdrawn: (notice: string) => void;
}) {
  const stale = useStalePlanReason(run);
  const approval = run.planApproval;
  if (!approval) return null;
  const approvals = approval.approvals ?? [];
  // A stale plan is approved by nobody any more: its approvals are history, with nothing to withdraw or to ask for.
  const still = stale ? '' : planStillNeeds(approval);
  const withdrawable = mayWithdraw && !stale;
  if (approvals.length === 0 && !still && !approval.blockedBy) return null;
  return (
    <section aria-labelledby="plan-approvals-heading">
      <h2 id="plan-approvals-heading">Approvals of this plan</h2>
      {approvals.length > 0 ? (
        <DataTable columns={['Approver', 'Approved', 'Groups', withdrawable && 'Withdraw']}>
          {approvals.map((record) => (
            <tr key={record.approvedBy} data-approver={record.approvedBy}>
              <td class="wrap">{record.approvedBy}</td>
              <td>
                <TimeCell value={record.approvedAt} />
              </td>
              <td class="wrap">{record.groups.length > 0 ? record.groups.join(', ') : '—'}</td>
              {withdrawable && (
                <td>
                  <WithdrawPlanApproval api={api} run={run} record={record} onWithdrawn={onWithdrawn} />
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      ) : (
        <p>No approvals yet.</p>
      )}
      {still && <p data-testid="plan-still-needed">Still needed: {still}.</p>}
      {approval.blockedBy && (
        <p class="notice" data-testid="plan-blocked">
          Held back: {approval.blockedBy.message}
        </p>
      )}
    </section>
  );
}

/** `POST .../runs/{plan}/withdraw` with the approver as its record names it, confirmed by naming both. */
function WithdrawPlanApproval({
  api,
  run,
  record,
  onWithdrawn,
}: {
  api: Api;
  run: Run;
  record: PlanApprovalRecord;
  onWithdrawn: (notice: string) => void;
}) {
  const withdraw = async () => {
    const plan = await api.post<Run>(`${runsPath(run.project)}/runs/${encodeURIComponent(run.id)}/withdraw`, {
      approver: record.approvedBy,
    });
    const still = plan.planApproval ? planStillNeeds(plan.planApproval) : '';
    onWithdrawn(
      `Withdrew the approval of ${record.approvedBy} from plan ${run.id}.${still ? ` Still needed: ${still}.` : ''}`,
    );
  };
  return (
    <ConfirmAction
      trigger="Withdraw"
      triggerLabel={`Withdraw the approval of ${record.approvedBy}`}
      title={`Withdraw the approval of ${record.approvedBy} from plan run ${run.id}?`}
      confirm={`Withdraw ${record.approvedBy}'s approval`}
      danger
      action={withdraw}
    >
      <p>
        The approval {record.approvedBy} gave plan run <strong>{run.id}</strong> of Workspace{' '}
        <strong>{run.workspace}</strong> no longer counts towards its apply.
      </p>
    </ConfirmAction>
  );
}
